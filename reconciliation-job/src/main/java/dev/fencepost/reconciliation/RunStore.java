package dev.fencepost.reconciliation;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Persists runs and findings in paydb (changeset paydb-005). A run is inserted RUNNING before any
 * comparison, so a run that dies is visible as one that never completed; its counts and findings
 * are written with its completion in one transaction (ADR 0072). These are the only tables this
 * module writes directly.
 */
public class RunStore {

  private final JdbcClient jdbc;
  private final TransactionTemplate tx;

  public RunStore(DataSource paydb) {
    this.jdbc = JdbcClient.create(paydb);
    this.tx = new TransactionTemplate(new DataSourceTransactionManager(paydb));
  }

  public void start(UUID runId, ReconciliationWindow window, String triggeredBy, Instant at) {
    jdbc.sql(
            """
            INSERT INTO reconciliation_run (id, window_from, window_to, triggered_by, status, started_at)
            VALUES (:id, :from, :to, :by, 'RUNNING', :at)""")
        .param("id", runId)
        .param("from", Timestamp.from(window.from()))
        .param("to", Timestamp.from(window.to()))
        .param("by", triggeredBy)
        .param("at", Timestamp.from(at))
        .update();
  }

  public void complete(ReconciliationReport report) {
    tx.executeWithoutResult(
        status -> {
          for (var e : report.counts().entrySet()) {
            jdbc.sql(
                    """
                    INSERT INTO reconciliation_class_count (run_id, discrepancy, severity, finding_count)
                    VALUES (:run, :d, :s, :n)""")
                .param("run", report.runId())
                .param("d", e.getKey().name())
                .param("s", e.getKey().severity().name())
                .param("n", e.getValue())
                .update();
          }
          for (Finding f : report.findings()) {
            jdbc.sql(
                    """
                    INSERT INTO reconciliation_finding
                      (run_id, discrepancy, severity, subject, payout_id, account_id, detail)
                    VALUES (:run, :d, :s, :subject, :payout::uuid, :account, :detail)""")
                .param("run", report.runId())
                .param("d", f.discrepancy().name())
                .param("s", f.severity().name())
                .param("subject", f.subject())
                .param("payout", f.payoutId())
                .param("account", f.accountId())
                .param("detail", f.detail())
                .update();
          }
          ResolutionSummary r = report.resolutions();
          jdbc.sql(
                  """
                  UPDATE reconciliation_run
                     SET status = 'COMPLETED', finished_at = :at, finding_count = :total,
                         page_count = :pages, ticket_count = :tickets,
                         resolved_settled = :settled, resolved_absent = :absent,
                         still_ambiguous = :still, oldest_ambiguous_age_seconds = :age
                   WHERE id = :id AND status = 'RUNNING'""")
              .param("at", Timestamp.from(report.finishedAt()))
              .param("total", report.total())
              .param("pages", report.count(Severity.PAGE))
              .param("tickets", report.count(Severity.TICKET))
              .param("settled", r.settled())
              .param("absent", r.absent())
              .param("still", r.stillAmbiguous())
              .param(
                  "age",
                  report.oldestAmbiguousAge() == null
                      ? null
                      : report.oldestAmbiguousAge().toSeconds())
              .param("id", report.runId())
              .update();
        });
  }

  public void fail(UUID runId, String error, Instant at) {
    jdbc.sql(
            """
            UPDATE reconciliation_run SET status = 'FAILED', finished_at = :at, error = :error
             WHERE id = :id AND status = 'RUNNING'""")
        .param("at", Timestamp.from(at))
        .param("error", error == null ? "unknown" : error)
        .param("id", runId)
        .update();
  }
}
