package dev.fencepost.railproxy;

import dev.fencepost.web.FreeText;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;

/** SQL over proxydb. Every guard is a single statement; no read-then-write decides anything. */
public final class SubmissionStore {

  private static final String COLUMNS =
      "id, payout_id, account_id, fencing_token, client_reference, amount_minor, currency,"
          + " beneficiary_ref, outcome, rail_reference, decline_code, created_at, resolved_at";

  private final JdbcClient jdbc;

  public SubmissionStore(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /**
   * The high-water guard (ADR 0046) as one statement: accept iff {@code token >= high_water}, and
   * advance. A first submission for the account creates the row. The row lock this takes serialises
   * concurrent submissions for one account until their transaction ends.
   *
   * @return the new high-water, or empty when the token is stale (zero rows)
   */
  public Optional<Long> advanceHighWater(String accountId, long token) {
    return jdbc.sql(
            """
            INSERT INTO account_high_water (account_id, high_water) VALUES (:account, :token)
            ON CONFLICT (account_id) DO UPDATE
               SET high_water = EXCLUDED.high_water, updated_at = clock_timestamp()
             WHERE account_high_water.high_water <= EXCLUDED.high_water
            RETURNING high_water
            """)
        .param("account", accountId)
        .param("token", token)
        .query(Long.class)
        .optional();
  }

  /**
   * Negative control only (high-water guard off): remembers the highest token seen but refuses
   * nothing, so a stale token goes through.
   */
  public long observeHighWater(String accountId, long token) {
    return jdbc.sql(
            """
            INSERT INTO account_high_water (account_id, high_water) VALUES (:account, :token)
            ON CONFLICT (account_id) DO UPDATE
               SET high_water = GREATEST(account_high_water.high_water, EXCLUDED.high_water),
                   updated_at = clock_timestamp()
            RETURNING high_water
            """)
        .param("account", accountId)
        .param("token", token)
        .query(Long.class)
        .single();
  }

  public Optional<Long> highWater(String accountId) {
    return jdbc.sql("SELECT high_water FROM account_high_water WHERE account_id = :account")
        .param("account", accountId)
        .query(Long.class)
        .optional();
  }

  /**
   * Inserts the intent row. A second row for the payout violates the UNIQUE constraint and throws
   * {@link org.springframework.dao.DuplicateKeyException}: the mechanical FR-18 guarantee.
   */
  public long insertIntent(SubmissionRequest r) {
    return insertInto("rail_submission", r, "");
  }

  /** Negative control only: the intent, or empty when the payout already has one. */
  public Optional<Long> insertIntentIfAbsent(SubmissionRequest r) {
    return jdbc.sql(
            intentSql(
                "rail_submission",
                "ON CONFLICT ON CONSTRAINT rail_submission_payout_id_key" + " DO NOTHING"))
        .paramSource(r)
        .query(Long.class)
        .optional();
  }

  /** Negative control only: a second submission for a payout, in the non-unique side table. */
  public long insertUnguarded(SubmissionRequest r) {
    return insertInto("unguarded_submission", r, "");
  }

  private long insertInto(String table, SubmissionRequest r, String conflictClause) {
    return jdbc.sql(intentSql(table, conflictClause)).paramSource(r).query(Long.class).single();
  }

  private static String intentSql(String table, String conflictClause) {
    return "INSERT INTO "
        + table
        + " (payout_id, account_id, fencing_token, client_reference, amount_minor, currency,"
        + " beneficiary_ref) VALUES (:payoutId, :accountId, :fencingToken, :clientReference,"
        + " :amountMinor, :currency, :beneficiaryRef) "
        + conflictClause
        + " RETURNING id";
  }

  /**
   * Records the outcome exactly once (FR-20): only an unresolved row matches; the trigger in
   * proxydb refuses any later change.
   *
   * <p>It commits without waiting for the WAL flush (ADR 0222): {@code set_config(..., true)} turns
   * {@code synchronous_commit} off for this one statement's transaction, and the connection goes
   * back to the pool as it came. The intent, which is what keeps a payout from being sent twice
   * (FR-19), still waits for its flush. Any later synchronous commit on the server flushes the
   * outcome too; a crash before one leaves the row unresolved, which every reader takes for
   * ambiguous, as if the proxy had stopped between the rail's answer and this statement.
   *
   * @return 1, or 0 if the row was already resolved
   */
  public int recordOutcome(long submissionId, boolean unguarded, RailOutcome outcome) {
    String table = unguarded ? "unguarded_submission" : "rail_submission";
    return jdbc.sql(
            "UPDATE "
                + table
                + " SET outcome = :outcome, rail_reference = :railReference,"
                + " decline_code = :declineCode, resolved_at = clock_timestamp()"
                + " WHERE id = :id AND outcome IS NULL"
                + " AND set_config('synchronous_commit', 'off', true) IS NOT NULL")
        .param("outcome", outcome.outcome().name())
        .param("railReference", outcome.railReference())
        .param("declineCode", outcome.declineCode())
        .param("id", submissionId)
        .update();
  }

  public void recordRejection(
      String reason, SubmissionRequest r, Long highWater, Long existingSubmissionId) {
    jdbc.sql(
            """
            INSERT INTO submission_rejection (reason, payout_id, account_id, presented_token,
                high_water, client_reference, existing_submission_id)
            VALUES (:reason, :payoutId, :accountId, :token, :highWater, :clientReference,
                :existing)
            """)
        .param("reason", reason)
        .param("payoutId", r.payoutId())
        .param("accountId", r.accountId())
        .param("token", r.fencingToken())
        .param("highWater", highWater)
        .param("clientReference", r.clientReference())
        .param("existing", existingSubmissionId)
        .update();
  }

  /**
   * Records a submission refused for its grant (ADR 0137): {@code reason} is the refusal code; the
   * high-water is neither read nor touched.
   */
  public void recordGrantRejection(
      String reason, SubmissionRequest r, String grantKeyId, String detail) {
    jdbc.sql(
            """
            INSERT INTO submission_rejection (reason, payout_id, account_id, presented_token,
                client_reference, grant_key_id, detail)
            VALUES (:reason, :payoutId, :accountId, :token, :clientReference, :kid, :detail)
            """)
        .param("reason", reason)
        .param("payoutId", r.payoutId())
        .param("accountId", r.accountId())
        .param("token", r.fencingToken())
        .param("clientReference", r.clientReference())
        // The key id comes from the presented, unverified grant's header and the detail may quote
        // it: attacker's text, recorded with its control characters replaced (paydb-style
        // PostgreSQL refuses NUL, which would turn a refusal into a 503).
        .param("kid", grantKeyId == null ? null : truncate(FreeText.printable(grantKeyId), 128))
        .param("detail", detail == null ? null : truncate(FreeText.printable(detail), 500))
        .update();
  }

  private static String truncate(String value, int max) {
    return value.length() <= max ? value : value.substring(0, max);
  }

  public Optional<SubmissionRecord> findByPayoutId(String payoutId) {
    return jdbc.sql("SELECT " + COLUMNS + " FROM rail_submission WHERE payout_id = :payoutId")
        .param("payoutId", payoutId)
        .query(SubmissionRecord.class)
        .optional();
  }

  /**
   * A keyset page ordered by id: rows with {@code id > afterId}, created in [{@code from}, {@code
   * to}) when given.
   */
  public List<SubmissionRecord> page(
      OffsetDateTime from, OffsetDateTime to, long afterId, int limit) {
    StringBuilder sql =
        new StringBuilder("SELECT " + COLUMNS + " FROM rail_submission WHERE id > :afterId");
    List<Object[]> params = new ArrayList<>();
    if (from != null) {
      sql.append(" AND created_at >= :from");
      params.add(new Object[] {"from", from});
    }
    if (to != null) {
      sql.append(" AND created_at < :to");
      params.add(new Object[] {"to", to});
    }
    sql.append(" ORDER BY id LIMIT :limit");
    JdbcClient.StatementSpec statement =
        jdbc.sql(sql.toString()).param("afterId", afterId).param("limit", limit);
    for (Object[] p : params) {
      statement = statement.param((String) p[0], p[1]);
    }
    return statement.query(SubmissionRecord.class).list();
  }
}
