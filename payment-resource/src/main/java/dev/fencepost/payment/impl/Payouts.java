package dev.fencepost.payment.impl;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutId;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payment.PendingCandidate;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;

/** Plain SQL over {@code payout}. */
public final class Payouts {

  private static final String IN_FLIGHT =
      "('CLAIMED', 'RAIL_SUBMITTED', 'RAIL_ACKED', 'RAIL_AMBIGUOUS')";

  private final JdbcClient jdbc;

  public Payouts(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /**
   * What a transition writes besides the state, token stamp and version.
   *
   * @param claimedBy set claimer and claim time (CLAIM, RECLAIM), or null
   * @param submitted set the submission time
   * @param railReference set the rail reference and settlement time, or null
   * @param failureReason set the failure reason (to FAILED or ABANDONED), or null
   * @param finished set the finish time (to a terminal state)
   */
  public record Change(
      String claimedBy,
      boolean submitted,
      String railReference,
      String failureReason,
      boolean finished) {}

  public Optional<Payout> find(PayoutId id) {
    return jdbc.sql("SELECT " + Rows.PAYOUT_COLUMNS + " FROM payout WHERE id = :id")
        .param("id", id.value())
        .query(Rows.PAYOUT)
        .optional();
  }

  public void insertPending(
      PayoutId id, AccountId account, long amountMinor, String currency, String beneficiaryRef) {
    jdbc.sql(
            """
            INSERT INTO payout (id, account_id, amount_minor, currency, beneficiary_ref)
            VALUES (:id, :account, :amount, :currency, :beneficiary)""")
        .param("id", id.value())
        .param("account", account.value())
        .param("amount", amountMinor)
        .param("currency", currency)
        .param("beneficiary", beneficiaryRef)
        .update();
  }

  /**
   * The audit row a transition writes with it (FR-30): who, and why. The token, the payout, its
   * account and both states come from the transition itself.
   *
   * @param role the actor's role
   * @param actorId the actor
   * @param action the event's name
   * @param reason the event's text, or null
   */
  public record Audit(String role, String actorId, String action, String reason) {}

  /**
   * Moves the payout from {@code from} to {@code to}, only if it is still in {@code from}, and
   * writes its audit row, in one statement (ADR 0216): the row is written exactly when the payout
   * moved, since it is inserted from what the update returned.
   *
   * @return the payout as it now is (the statement returns its row, so no second read is needed),
   *     or empty when it was not in {@code from} (nothing changed, no audit row)
   */
  public Optional<Payout> transition(
      PayoutId id,
      PayoutState from,
      PayoutState to,
      FencingToken token,
      Change change,
      Audit audit) {
    return jdbc.sql(
            """
                WITH moved AS (
                  UPDATE payout
                     SET state = :to, token_stamp = :token, version = version + 1,
                         updated_at = now(),
                         claimed_by = CASE WHEN :claim THEN :claimedBy ELSE claimed_by END,
                         claimed_at = CASE WHEN :claim THEN now() ELSE claimed_at END,
                         submitted_at = CASE WHEN :submitted THEN now() ELSE submitted_at END,
                         rail_reference = CASE WHEN :settled THEN :railReference
                                               ELSE rail_reference END,
                         settled_at = CASE WHEN :settled THEN now() ELSE settled_at END,
                         failure_reason = CASE WHEN :failed THEN :failureReason
                                               ELSE failure_reason END,
                         finished_at = CASE WHEN :finished THEN now() ELSE finished_at END
                   WHERE id = :id AND state = :from
                  RETURNING %1$s),
                audited AS (
                  INSERT INTO audit_event (actor_role, actor_id, fencing_token, account_id,
                                           payout_id, action, from_state, to_state, reason)
                  SELECT :role, :actor, :token, account_id, id, :action, :from, :to, :reason
                    FROM moved)
                SELECT %1$s FROM moved"""
                .formatted(Rows.PAYOUT_COLUMNS))
        .param("id", id.value())
        .param("from", from.name())
        .param("to", to.name())
        .param("token", token.value())
        .param("claim", change.claimedBy() != null)
        .param("claimedBy", change.claimedBy())
        .param("submitted", change.submitted())
        .param("settled", change.railReference() != null)
        .param("railReference", change.railReference())
        .param("failed", change.failureReason() != null)
        .param("failureReason", change.failureReason())
        .param("finished", change.finished())
        .param("role", audit.role())
        .param("actor", audit.actorId())
        .param("action", audit.action())
        .param("reason", audit.reason())
        .query(Rows.PAYOUT)
        .optional();
  }

  public long countInFlight(AccountId account) {
    return jdbc.sql(
            "SELECT count(*) FROM payout WHERE account_id = :account AND state IN " + IN_FLIGHT)
        .param("account", account.value())
        .query(Long.class)
        .single();
  }

  /**
   * The oldest PENDING payout of each account that has nothing in flight, oldest first, with the
   * account's count of PENDING payouts. An account with a payout in flight is skipped: that payout
   * must reach an ending first, and while it is ambiguous the balance may overstate what is
   * available. The count is a window over the rows the DISTINCT ON sorts anyway, so it costs
   * no second pass.
   */
  public List<PendingCandidate> pendingCandidates(int limit) {
    String query =
        """
        SELECT %s, account_pending
          FROM (SELECT DISTINCT ON (p.account_id) p.*,
                       count(*) OVER (PARTITION BY p.account_id) AS account_pending
                  FROM payout p
                 WHERE p.state = 'PENDING'
                   AND NOT EXISTS (SELECT 1 FROM payout q
                                    WHERE q.account_id = p.account_id AND q.state IN %s)
                 ORDER BY p.account_id, p.created_at, p.id) oldest
         ORDER BY created_at, id
         LIMIT :limit"""
            .formatted(Rows.PAYOUT_COLUMNS, IN_FLIGHT);
    return jdbc.sql(query)
        .param("limit", limit)
        .query(
            (rs, row) ->
                new PendingCandidate(Rows.PAYOUT.mapRow(rs, row), rs.getInt("account_pending")))
        .list();
  }

  /**
   * The account's oldest PENDING payout, unless one of its payouts is in flight: {@link
   * #pendingCandidates}' choice for one account.
   */
  public Optional<Payout> nextPending(AccountId account) {
    String query =
        """
        SELECT %s
          FROM payout p
         WHERE p.account_id = :account AND p.state = 'PENDING'
           AND NOT EXISTS (SELECT 1 FROM payout q
                            WHERE q.account_id = :account AND q.state IN %s)
         ORDER BY p.created_at, p.id
         LIMIT 1"""
            .formatted(Rows.PAYOUT_COLUMNS, IN_FLIGHT);
    return jdbc.sql(query).param("account", account.value()).query(Rows.PAYOUT).optional();
  }

  /** Payouts claimed and not yet terminal, least recently changed first. */
  public List<Payout> inFlight(int limit) {
    return jdbc.sql(
            "SELECT "
                + Rows.PAYOUT_COLUMNS
                + " FROM payout WHERE state IN "
                + IN_FLIGHT
                + " ORDER BY updated_at, id LIMIT :limit")
        .param("limit", limit)
        .query(Rows.PAYOUT)
        .list();
  }

  /** Payouts in one state, least recently changed (so: longest in that state) first. */
  public List<Payout> inState(PayoutState state, int limit) {
    return jdbc.sql(
            "SELECT "
                + Rows.PAYOUT_COLUMNS
                + " FROM payout WHERE state = :state ORDER BY updated_at, id LIMIT :limit")
        .param("state", state.name())
        .param("limit", limit)
        .query(Rows.PAYOUT)
        .list();
  }

  /** Accounts with more than one payout in flight: a detective check behind INV-01. */
  public List<AccountId> accountsWithConcurrentInFlight(int limit) {
    return jdbc
        .sql(
            "SELECT account_id FROM payout WHERE state IN "
                + IN_FLIGHT
                + " GROUP BY account_id HAVING count(*) > 1 ORDER BY account_id LIMIT :limit")
        .param("limit", limit)
        .query(String.class)
        .list()
        .stream()
        .map(AccountId::of)
        .toList();
  }
}
