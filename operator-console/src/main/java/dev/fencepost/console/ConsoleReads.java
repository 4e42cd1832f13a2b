package dev.fencepost.console;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Everything the console reads from the databases, each a plain SELECT on a read-only session (ADR
 * 0186): no {@code FOR UPDATE}, no function that writes, no temporary table. paydb is required;
 * proxydb and lockdb are read when configured.
 */
public class ConsoleReads {

  /** Every payout state, in the order of the state machine (docs/payment-resource.md). */
  public static final List<String> STATES =
      List.of(
          "PENDING",
          "CLAIMED",
          "RAIL_SUBMITTED",
          "RAIL_ACKED",
          "RAIL_AMBIGUOUS",
          "POSTED",
          "FAILED",
          "ABANDONED");

  private final JdbcClient paydb;
  private final Optional<JdbcClient> proxydb;
  private final Optional<JdbcClient> lockdb;
  private final ConsoleProperties properties;

  public ConsoleReads(
      JdbcClient paydb,
      Optional<JdbcClient> proxydb,
      Optional<JdbcClient> lockdb,
      ConsoleProperties properties) {
    this.paydb = paydb;
    this.proxydb = proxydb;
    this.lockdb = lockdb;
    this.properties = properties;
  }

  /** One reconciliation run as paydb recorded it. */
  public record Run(
      UUID id,
      String status,
      String triggeredBy,
      Instant windowFrom,
      Instant windowTo,
      Instant startedAt,
      Instant finishedAt,
      long findings,
      long pages,
      long tickets,
      int settled,
      int absent,
      int stillAmbiguous,
      String error) {

    /** The run's verdict for a person: clean, tickets only, paged, still running or failed. */
    public String verdict() {
      return switch (status) {
        case "RUNNING" -> "still running";
        case "FAILED" -> "failed: " + error;
        default ->
            pages > 0
                ? pages + " finding(s) that page"
                : tickets > 0 ? tickets + " ticket finding(s), nothing that pages" : "clean";
      };
    }
  }

  /** The overview's figures. */
  public record Overview(
      Map<String, Long> states, Duration oldestPending, long ambiguousPastSla, Run lastRun) {}

  /** One payout. */
  public record Payout(
      UUID id,
      String accountId,
      long amountMinor,
      String currency,
      String beneficiary,
      String state,
      Long token,
      String claimedBy,
      String clientReference,
      String railReference,
      String failureReason,
      Instant createdAt,
      Instant updatedAt,
      Instant finishedAt) {}

  /** One row of a payout's audit trail: a transition, with who did it under which token. */
  public record Transition(
      Instant at,
      String actorRole,
      String actorId,
      Long token,
      String action,
      String fromState,
      String toState,
      String reason) {}

  /** The proxy's record of a payout's submission. */
  public record Submission(
      long id,
      long token,
      String clientReference,
      long amountMinor,
      String currency,
      String beneficiary,
      String outcome,
      String railReference,
      String declineCode,
      Instant createdAt,
      Instant resolvedAt) {}

  /** One break-glass revoke as lockdb's audit recorded it. */
  public record LockAudit(
      long id,
      String action,
      String key,
      String operator,
      String reason,
      Long revokedToken,
      String revokedOwner,
      Instant at) {}

  /** A lock held now, by lockdb. */
  public record HeldLock(
      String key, String owner, long token, Instant acquiredAt, Instant expiresAt) {}

  /** Payouts posted in one minute. */
  public record Minute(Instant minute, long posted) {}

  public Overview overview() {
    Map<String, Long> states = new LinkedHashMap<>();
    STATES.forEach(state -> states.put(state, 0L));
    paydb
        .sql("SELECT state, count(*) AS n FROM payout GROUP BY state")
        .query((rs, i) -> Map.entry(rs.getString("state"), rs.getLong("n")))
        .list()
        .forEach(e -> states.put(e.getKey(), e.getValue()));
    Instant oldestPending =
        paydb
            .sql("SELECT min(created_at) FROM payout WHERE state = 'PENDING'")
            .query((rs, i) -> instant(rs, 1))
            .optional()
            .orElse(null);
    long pastSla =
        paydb
            .sql(
                "SELECT count(*) FROM payout WHERE state = 'RAIL_AMBIGUOUS'"
                    + " AND coalesce(submitted_at, updated_at) < :cutoff")
            .param("cutoff", Timestamp.from(Instant.now().minus(properties.getResolutionSla())))
            .query(Long.class)
            .single();
    return new Overview(
        states,
        oldestPending == null ? null : Duration.between(oldestPending, Instant.now()),
        pastSla,
        lastRun().orElse(null));
  }

  public Optional<Run> lastRun() {
    return paydb
        .sql(
            """
            SELECT id, status, triggered_by, window_from, window_to, started_at, finished_at,
                   finding_count, page_count, ticket_count, resolved_settled, resolved_absent,
                   still_ambiguous, error
              FROM reconciliation_run ORDER BY started_at DESC LIMIT 1""")
        .query(
            (rs, i) ->
                new Run(
                    rs.getObject("id", UUID.class),
                    rs.getString("status"),
                    rs.getString("triggered_by"),
                    instant(rs, "window_from"),
                    instant(rs, "window_to"),
                    instant(rs, "started_at"),
                    instant(rs, "finished_at"),
                    rs.getLong("finding_count"),
                    rs.getLong("page_count"),
                    rs.getLong("ticket_count"),
                    rs.getInt("resolved_settled"),
                    rs.getInt("resolved_absent"),
                    rs.getInt("still_ambiguous"),
                    rs.getString("error")))
        .optional();
  }

  /** Payouts matching the filters (each may be null), newest first, one page. */
  public List<Payout> payouts(String state, String accountId, Duration olderThan) {
    StringBuilder sql = new StringBuilder(PAYOUT_COLUMNS + " FROM payout WHERE true");
    Map<String, Object> params = new LinkedHashMap<>();
    if (state != null) {
      sql.append(" AND state = :state");
      params.put("state", state);
    }
    if (accountId != null) {
      sql.append(" AND account_id = :account");
      params.put("account", accountId);
    }
    if (olderThan != null) {
      sql.append(" AND created_at < :cutoff");
      params.put("cutoff", Timestamp.from(Instant.now().minus(olderThan)));
    }
    sql.append(" ORDER BY created_at DESC, id LIMIT :limit");
    params.put("limit", properties.getPageSize());
    return paydb.sql(sql.toString()).params(params).query(ConsoleReads::payout).list();
  }

  public Optional<Payout> payout(UUID id) {
    return paydb
        .sql(PAYOUT_COLUMNS + " FROM payout WHERE id = :id")
        .param("id", id)
        .query(ConsoleReads::payout)
        .optional();
  }

  /** The payout's audit trail, oldest first. */
  public List<Transition> history(UUID payoutId) {
    return paydb
        .sql(
            """
            SELECT occurred_at, actor_role, actor_id, fencing_token, action, from_state, to_state,
                   reason
              FROM audit_event WHERE payout_id = :id ORDER BY id""")
        .param("id", payoutId)
        .query(
            (rs, i) ->
                new Transition(
                    instant(rs, "occurred_at"),
                    rs.getString("actor_role"),
                    rs.getString("actor_id"),
                    (Long) rs.getObject("fencing_token", Long.class),
                    rs.getString("action"),
                    rs.getString("from_state"),
                    rs.getString("to_state"),
                    rs.getString("reason")))
        .list();
  }

  public boolean readsProxydb() {
    return proxydb.isPresent();
  }

  public boolean readsLockdb() {
    return lockdb.isPresent();
  }

  /** The proxy's record of the payout's submission, when proxydb is read and has one. */
  public Optional<Submission> submission(UUID payoutId) {
    return proxydb.flatMap(
        jdbc ->
            jdbc.sql(
                    """
                    SELECT id, fencing_token, client_reference, amount_minor, currency,
                           beneficiary_ref, outcome, rail_reference, decline_code, created_at,
                           resolved_at
                      FROM rail_submission WHERE payout_id = :id""")
                .param("id", payoutId.toString())
                .query(
                    (rs, i) ->
                        new Submission(
                            rs.getLong("id"),
                            rs.getLong("fencing_token"),
                            rs.getString("client_reference"),
                            rs.getLong("amount_minor"),
                            rs.getString("currency"),
                            rs.getString("beneficiary_ref"),
                            rs.getString("outcome"),
                            rs.getString("rail_reference"),
                            rs.getString("decline_code"),
                            instant(rs, "created_at"),
                            instant(rs, "resolved_at")))
                .optional());
  }

  /** Revokes recorded for {@code key}, newest first (lockdb, PostgreSQL backend). */
  public List<LockAudit> lockAudit(String key) {
    return lockdb
        .map(
            jdbc ->
                jdbc.sql(
                        """
                        SELECT id, action, lock_key, operator, reason, revoked_token, revoked_owner, at
                          FROM lock_audit WHERE lock_key = :key ORDER BY id DESC LIMIT 20""")
                    .param("key", key)
                    .query(
                        (rs, i) ->
                            new LockAudit(
                                rs.getLong("id"),
                                rs.getString("action"),
                                rs.getString("lock_key"),
                                rs.getString("operator"),
                                rs.getString("reason"),
                                (Long) rs.getObject("revoked_token", Long.class),
                                rs.getString("revoked_owner"),
                                instant(rs, "at")))
                    .list())
        .orElse(List.of());
  }

  /** Locks held now, oldest grant first (lockdb, PostgreSQL backend). */
  public List<HeldLock> heldLocks() {
    return lockdb
        .map(
            jdbc ->
                jdbc.sql(
                        """
                        SELECT e.lock_key, e.owner, e.token, e.acquired_at, s.expires_at
                          FROM lock_entry e JOIN lock_session s ON s.id = e.session_id
                         WHERE s.expires_at > now() AND e.token > 0
                         ORDER BY e.acquired_at LIMIT :limit""")
                    .param("limit", properties.getPageSize())
                    .query(
                        (rs, i) ->
                            new HeldLock(
                                rs.getString(1),
                                rs.getString(2),
                                rs.getLong(3),
                                instant(rs, 4),
                                instant(rs, 5)))
                    .list())
        .orElse(List.of());
  }

  /** Payouts posted per minute over the chart window, every minute present (zeros included). */
  public List<Minute> postedPerMinute() {
    Instant to = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MINUTES);
    Instant from = to.minus(properties.getChartWindow());
    Map<Instant, Long> counts = new LinkedHashMap<>();
    for (Instant m = from; !m.isAfter(to); m = m.plusSeconds(60)) {
      counts.put(m, 0L);
    }
    paydb
        .sql(
            """
            SELECT date_trunc('minute', finished_at) AS minute, count(*) AS n FROM payout
             WHERE state = 'POSTED' AND finished_at >= :from GROUP BY 1""")
        .param("from", Timestamp.from(from))
        .query((rs, i) -> Map.entry(instant(rs, 1), rs.getLong(2)))
        .list()
        .forEach(e -> counts.computeIfPresent(e.getKey(), (k, v) -> e.getValue()));
    List<Minute> minutes = new ArrayList<>();
    counts.forEach((minute, n) -> minutes.add(new Minute(minute, n)));
    return minutes;
  }

  /** Whether paydb answers: the first guard's store. */
  public boolean paydbAnswers() {
    try {
      return paydb.sql("SELECT 1").query(Integer.class).single() == 1;
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static final String PAYOUT_COLUMNS =
      """
      SELECT id, account_id, amount_minor, currency, beneficiary_ref, state, token_stamp,
             claimed_by, client_reference, rail_reference, failure_reason, created_at, updated_at,
             finished_at""";

  private static Payout payout(ResultSet rs, int row) throws SQLException {
    return new Payout(
        rs.getObject("id", UUID.class),
        rs.getString("account_id"),
        rs.getLong("amount_minor"),
        rs.getString("currency"),
        rs.getString("beneficiary_ref"),
        rs.getString("state"),
        (Long) rs.getObject("token_stamp", Long.class),
        rs.getString("claimed_by"),
        rs.getString("client_reference"),
        rs.getString("rail_reference"),
        rs.getString("failure_reason"),
        instant(rs, "created_at"),
        instant(rs, "updated_at"),
        instant(rs, "finished_at"));
  }

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    Timestamp t = rs.getTimestamp(column);
    return t == null ? null : t.toInstant();
  }

  private static Instant instant(ResultSet rs, int column) throws SQLException {
    Timestamp t = rs.getTimestamp(column);
    return t == null ? null : t.toInstant();
  }
}
