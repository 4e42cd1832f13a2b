package dev.fencepost.reconciliation;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Findings with owners (ADR 0179): the issues of paydb-009, one per class and subject, and their
 * lifecycle. The reconciler opens an issue when it first finds it and reopens a RESOLVED one that
 * recurs ({@link RunStore}); an operator acknowledges (OPEN or REOPENED to ACKNOWLEDGED) and
 * resolves with a reason (OPEN, ACKNOWLEDGED or REOPENED to RESOLVED). Every change is an audit
 * event (who, when, why) in the same transaction; any other transition is refused. Nothing here
 * touches money: an issue is a record about the stores, never a repair of them (FR-26).
 */
public class FindingStore {

  /** What an operator does to an issue. */
  public enum Action {
    ACKNOWLEDGE("ACKNOWLEDGED", Set.of("OPEN", "REOPENED")),
    RESOLVE("RESOLVED", Set.of("OPEN", "ACKNOWLEDGED", "REOPENED"));

    final String to;
    final Set<String> from;

    Action(String to, Set<String> from) {
      this.to = to;
      this.from = from;
    }
  }

  /** The statuses an issue can have. */
  public static final Set<String> STATUSES = Set.of("OPEN", "ACKNOWLEDGED", "RESOLVED", "REOPENED");

  /** One issue. */
  public record Issue(
      long id,
      String discrepancy,
      String severity,
      String subject,
      String payoutId,
      String accountId,
      String detail,
      String status,
      Instant firstFoundAt,
      Instant lastFoundAt,
      long timesFound,
      Instant statusChangedAt) {}

  /** One change of an issue's status. */
  public record Event(
      String fromStatus,
      String toStatus,
      String actorRole,
      String actor,
      String reason,
      String runId,
      Instant at) {}

  private static final String ISSUE =
      """
      SELECT id, discrepancy, severity, subject, payout_id::text AS payout, account_id, detail,
             status, first_found_at, last_found_at, times_found, status_changed_at
        FROM reconciliation_issue""";

  private final JdbcClient jdbc;
  private final TransactionTemplate tx;

  public FindingStore(DataSource paydb) {
    this.jdbc = JdbcClient.create(paydb);
    this.tx = new TransactionTemplate(new DataSourceTransactionManager(paydb));
  }

  /**
   * Issues by id, after {@code afterId}, at most {@code limit}, of one status and severity when
   * given.
   */
  public List<Issue> list(String status, String severity, long afterId, int limit) {
    return jdbc.sql(
            ISSUE
                + " WHERE id > :after AND (CAST(:status AS text) IS NULL OR status = :status)"
                + " AND (CAST(:severity AS text) IS NULL OR severity = :severity)"
                + " ORDER BY id LIMIT :limit")
        .param("after", afterId)
        .param("status", status)
        .param("severity", severity)
        .param("limit", limit)
        .query(FindingStore::issue)
        .list();
  }

  public Optional<Issue> find(long id) {
    return jdbc.sql(ISSUE + " WHERE id = :id")
        .param("id", id)
        .query(FindingStore::issue)
        .optional();
  }

  /** The issue's audit trail, oldest first. */
  public List<Event> trail(long id) {
    return jdbc.sql(
            """
            SELECT from_status, to_status, actor_role, actor, reason, run_id::text, at
              FROM reconciliation_issue_event WHERE issue_id = :id ORDER BY id""")
        .param("id", id)
        .query(
            (rs, i) ->
                new Event(
                    rs.getString(1),
                    rs.getString(2),
                    rs.getString(3),
                    rs.getString(4),
                    rs.getString(5),
                    rs.getString(6),
                    rs.getTimestamp(7).toInstant()))
        .list();
  }

  /**
   * Moves issue {@code id} by {@code action} as {@code operator}, with its audit event.
   *
   * @throws FindingActionRefusedException FINDING_NOT_FOUND, or ILLEGAL_TRANSITION from its status
   */
  public Issue transition(long id, Action action, String operator, String reason) {
    return tx.execute(
        status -> {
          String current =
              jdbc.sql("SELECT status FROM reconciliation_issue WHERE id = :id FOR UPDATE")
                  .param("id", id)
                  .query(String.class)
                  .optional()
                  .orElseThrow(
                      () ->
                          new FindingActionRefusedException(
                              "FINDING_NOT_FOUND", "no reconciliation finding " + id));
          if (!action.from.contains(current)) {
            throw new FindingActionRefusedException(
                "ILLEGAL_TRANSITION",
                "a finding "
                    + current
                    + " cannot be "
                    + action.to
                    + "; "
                    + action.name().toLowerCase()
                    + " is allowed from "
                    + action.from.stream().sorted().toList());
          }
          jdbc.sql(
                  "UPDATE reconciliation_issue SET status = :to, status_changed_at = clock_timestamp()"
                      + " WHERE id = :id")
              .param("to", action.to)
              .param("id", id)
              .update();
          jdbc.sql(
                  """
                  INSERT INTO reconciliation_issue_event
                    (issue_id, from_status, to_status, actor_role, actor, reason)
                  VALUES (:id, :from, :to, 'OPERATOR', :actor, :reason)""")
              .param("id", id)
              .param("from", current)
              .param("to", action.to)
              .param("actor", operator)
              .param("reason", reason)
              .update();
          return find(id).orElseThrow();
        });
  }

  private static Issue issue(ResultSet rs, int row) throws SQLException {
    return new Issue(
        rs.getLong("id"),
        rs.getString("discrepancy"),
        rs.getString("severity"),
        rs.getString("subject"),
        rs.getString("payout"),
        rs.getString("account_id"),
        rs.getString("detail"),
        rs.getString("status"),
        instant(rs.getTimestamp("first_found_at")),
        instant(rs.getTimestamp("last_found_at")),
        rs.getLong("times_found"),
        instant(rs.getTimestamp("status_changed_at")));
  }

  private static Instant instant(Timestamp t) {
    return t == null ? null : t.toInstant();
  }
}
