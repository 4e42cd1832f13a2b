package dev.fencepost.reconciliation;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Persists runs and findings in paydb (changeset paydb-005). A run is inserted RUNNING before any
 * comparison, so a run that dies is visible as one that never completed; its counts and findings
 * are written with its completion in one transaction (ADR 0072). In the same transaction every
 * finding becomes, or finds again, its issue (changeset paydb-009, ADR 0179): one row per class and
 * subject, however many runs or windows find it, so re-running a window never duplicates a finding;
 * an issue resolved by an operator that is found again is REOPENED, with an audit event. These, the
 * windows ({@link WindowLedger}) and the statement entries ({@link StatementEntryStore}) are the
 * only tables this module writes directly.
 */
public class RunStore {

  private static final Logger log = LoggerFactory.getLogger(RunStore.class);

  private final JdbcClient jdbc;
  private final TransactionTemplate tx;
  private final String reconcilerId;

  public RunStore(DataSource paydb) {
    this(paydb, "reconciliation-job");
  }

  /**
   * @param reconcilerId the reconciler's identity in the issues' audit trail
   */
  public RunStore(DataSource paydb, String reconcilerId) {
    this.jdbc = JdbcClient.create(paydb);
    this.tx = new TransactionTemplate(new DataSourceTransactionManager(paydb));
    this.reconcilerId = reconcilerId;
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
            issue(f, report);
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

  /** One issue per class and subject: found for the first time, found again, or reopened. */
  private void issue(Finding f, ReconciliationReport report) {
    Timestamp at = Timestamp.from(report.finishedAt());
    Optional<Map.Entry<Long, String>> existing = existing(f);
    if (existing.isEmpty()) {
      Optional<Long> inserted =
          jdbc.sql(
                  """
                  INSERT INTO reconciliation_issue
                    (discrepancy, severity, subject, payout_id, account_id, detail, status,
                     first_found_at, last_found_at, first_run_id, last_run_id, status_changed_at)
                  VALUES (:d, :s, :subject, :payout::uuid, :account, :detail, 'OPEN',
                          :at, :at, :run, :run, :at)
                  ON CONFLICT (discrepancy, subject) DO NOTHING RETURNING id""")
              .param("d", f.discrepancy().name())
              .param("s", f.severity().name())
              .param("subject", f.subject())
              .param("payout", f.payoutId())
              .param("account", f.accountId())
              .param("detail", f.detail())
              .param("at", at)
              .param("run", report.runId())
              .query(Long.class)
              .optional();
      if (inserted.isPresent()) {
        event(inserted.get(), null, "OPEN", "found by run " + report.runId(), report.runId());
        log.atInfo()
            .addKeyValue("event", "reconciliation.issue.opened")
            .addKeyValue("issueId", inserted.get())
            .addKeyValue("discrepancy", f.discrepancy().name())
            .addKeyValue("subject", f.subject())
            .addKeyValue("runId", report.runId())
            .log("reconciliation issue opened");
        return;
      }
      existing = existing(f); // another run inserted it first
    }
    long id = existing.orElseThrow().getKey();
    boolean reopened = "RESOLVED".equals(existing.get().getValue());
    jdbc.sql(
            """
            UPDATE reconciliation_issue
               SET detail = :detail, last_found_at = :at, last_run_id = :run,
                   times_found = times_found + 1,
                   status = CASE WHEN :reopen THEN 'REOPENED' ELSE status END,
                   status_changed_at = CASE WHEN :reopen THEN :at ELSE status_changed_at END
             WHERE id = :id""")
        .param("detail", f.detail())
        .param("at", at)
        .param("run", report.runId())
        .param("reopen", reopened)
        .param("id", id)
        .update();
    if (reopened) {
      event(id, "RESOLVED", "REOPENED", "found again by run " + report.runId(), report.runId());
      log.atWarn()
          .addKeyValue("event", "reconciliation.issue.reopened")
          .addKeyValue("issueId", id)
          .addKeyValue("discrepancy", f.discrepancy().name())
          .addKeyValue("subject", f.subject())
          .addKeyValue("runId", report.runId())
          .log("a resolved reconciliation issue was found again");
    }
  }

  private Optional<Map.Entry<Long, String>> existing(Finding f) {
    return jdbc.sql(
            "SELECT id, status FROM reconciliation_issue"
                + " WHERE discrepancy = :d AND subject = :subject FOR UPDATE")
        .param("d", f.discrepancy().name())
        .param("subject", f.subject())
        .query((rs, i) -> Map.entry(rs.getLong(1), rs.getString(2)))
        .optional();
  }

  private void event(long issueId, String from, String to, String reason, UUID runId) {
    jdbc.sql(
            """
            INSERT INTO reconciliation_issue_event
              (issue_id, from_status, to_status, actor_role, actor, reason, run_id)
            VALUES (:issue, :from, :to, 'RECONCILER', :actor, :reason, :run)""")
        .param("issue", issueId)
        .param("from", from)
        .param("to", to)
        .param("actor", reconcilerId)
        .param("reason", reason)
        .param("run", runId)
        .update();
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
