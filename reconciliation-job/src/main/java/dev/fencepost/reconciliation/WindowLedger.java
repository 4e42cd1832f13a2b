package dev.fencepost.reconciliation;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The windows the reconciler has reconciled on its own, in paydb (changeset paydb-009, ADR 0177):
 * one row per window and pass, what it read and found, and its status. A pass is started once
 * ({@link #start} refuses a COMPLETED one, so two runs never both complete it) and tried again
 * while it has not completed.
 */
public class WindowLedger {

  /** FIRST: the window once closed; REREAD: once more after the late-entry grace. */
  public enum Pass {
    FIRST,
    REREAD
  }

  /** One window's pass as recorded. */
  public record Row(
      ReconciliationWindow window,
      Pass pass,
      String status,
      int attempts,
      Long entriesRead,
      Long entriesNew,
      Long submissionsRead,
      Long findingCount) {}

  private final JdbcClient jdbc;

  public WindowLedger(DataSource paydb) {
    this.jdbc = JdbcClient.create(paydb);
  }

  /** The end of the latest window whose FIRST pass completed, if any. */
  public Optional<Instant> lastCompletedFirstPassEnd() {
    return jdbc.sql(
            "SELECT max(window_to) FROM reconciliation_window"
                + " WHERE pass = 'FIRST' AND status = 'COMPLETED'")
        .query(Timestamp.class)
        .optional()
        .map(Timestamp::toInstant);
  }

  /** Windows whose FIRST pass completed, closed before {@code closedBefore}, not yet re-read. */
  public List<ReconciliationWindow> dueForReread(Instant closedBefore, int limit) {
    return jdbc.sql(
            """
            SELECT f.window_from, f.window_to FROM reconciliation_window f
             WHERE f.pass = 'FIRST' AND f.status = 'COMPLETED' AND f.window_to <= :before
               AND NOT EXISTS (SELECT 1 FROM reconciliation_window r
                                WHERE r.window_from = f.window_from AND r.pass = 'REREAD'
                                  AND r.status = 'COMPLETED')
             ORDER BY f.window_from LIMIT :limit""")
        .param("before", Timestamp.from(closedBefore))
        .param("limit", limit)
        .query(
            (rs, i) ->
                new ReconciliationWindow(
                    rs.getTimestamp(1).toInstant(), rs.getTimestamp(2).toInstant()))
        .list();
  }

  /**
   * Marks the pass RUNNING: inserted, or a FAILED or crashed (RUNNING) attempt taken over.
   *
   * @return false when the pass has completed already (nothing to do)
   */
  public boolean start(ReconciliationWindow window, Pass pass, Instant at) {
    int inserted =
        jdbc.sql(
                """
                INSERT INTO reconciliation_window (window_from, window_to, pass, status, started_at)
                VALUES (:from, :to, :pass, 'RUNNING', :at) ON CONFLICT (window_from, pass) DO NOTHING""")
            .param("from", Timestamp.from(window.from()))
            .param("to", Timestamp.from(window.to()))
            .param("pass", pass.name())
            .param("at", Timestamp.from(at))
            .update();
    if (inserted == 1) {
      return true;
    }
    return jdbc.sql(
                """
                UPDATE reconciliation_window
                   SET status = 'RUNNING', attempts = attempts + 1, started_at = :at,
                       finished_at = NULL, error = NULL
                 WHERE window_from = :from AND pass = :pass AND status <> 'COMPLETED'""")
            .param("at", Timestamp.from(at))
            .param("from", Timestamp.from(window.from()))
            .param("pass", pass.name())
            .update()
        == 1;
  }

  public void complete(ReconciliationWindow window, Pass pass, ReconciliationReport report) {
    jdbc.sql(
            """
            UPDATE reconciliation_window
               SET status = 'COMPLETED', run_id = :run, entries_read = :read, entries_new = :new,
                   submissions_read = :subs, finding_count = :found, page_count = :pages,
                   finished_at = :at
             WHERE window_from = :from AND pass = :pass AND status = 'RUNNING'""")
        .param("run", report.runId())
        .param("read", report.reads().entriesRead())
        .param("new", report.reads().entriesNew())
        .param("subs", report.reads().submissionsRead())
        .param("found", report.total())
        .param("pages", report.count(Severity.PAGE))
        .param("at", Timestamp.from(report.finishedAt()))
        .param("from", Timestamp.from(window.from()))
        .param("pass", pass.name())
        .update();
  }

  public void fail(ReconciliationWindow window, Pass pass, String error, Instant at) {
    jdbc.sql(
            """
            UPDATE reconciliation_window SET status = 'FAILED', error = :error, finished_at = :at
             WHERE window_from = :from AND pass = :pass AND status = 'RUNNING'""")
        .param("error", error == null ? "unknown" : error)
        .param("at", Timestamp.from(at))
        .param("from", Timestamp.from(window.from()))
        .param("pass", pass.name())
        .update();
  }

  /** Every recorded pass, oldest window first (tests, operators). */
  public List<Row> rows() {
    return jdbc.sql(
            """
            SELECT window_from, window_to, pass, status, attempts, entries_read, entries_new,
                   submissions_read, finding_count
              FROM reconciliation_window ORDER BY window_from, pass""")
        .query(
            (rs, i) ->
                new Row(
                    new ReconciliationWindow(
                        rs.getTimestamp(1).toInstant(), rs.getTimestamp(2).toInstant()),
                    Pass.valueOf(rs.getString(3)),
                    rs.getString(4),
                    rs.getInt(5),
                    (Long) rs.getObject(6),
                    (Long) rs.getObject(7),
                    (Long) rs.getObject(8),
                    (Long) rs.getObject(9)))
        .list();
  }
}
