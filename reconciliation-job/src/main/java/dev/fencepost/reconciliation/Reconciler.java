package dev.fencepost.reconciliation;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One reconciliation run over a window (UC-07, FR-26): resolve ambiguity by evidence first, then
 * compare every store, persist and report. This is the API the Batch step, the local platform and
 * the tests call:
 *
 * <pre>{@code
 * ReconciliationReport report = reconciler.run(ReconciliationWindow.previousHour(now), "cron");
 * }</pre>
 *
 * Resolution runs first so a payout resolved in this run is compared in its new state; the
 * comparison itself writes nothing but the run's own rows (FR-26).
 */
public class Reconciler {

  private static final Logger log = LoggerFactory.getLogger(Reconciler.class);

  private final AmbiguityResolver resolver;
  private final Detector detector;
  private final RunStore runs;
  private final PaydbReads reads;
  private final ReconciliationSignals signals;

  public Reconciler(
      AmbiguityResolver resolver,
      Detector detector,
      RunStore runs,
      PaydbReads reads,
      ReconciliationSignals signals) {
    this.resolver = resolver;
    this.detector = detector;
    this.runs = runs;
    this.reads = reads;
    this.signals = signals;
  }

  /**
   * A reconciler without Spring, for the local platform and tools: paydb (with its changelog
   * applied), the proxy's base URL, the rail's base URL (its camt.053 statements, ADR 0176), a lock
   * template connected to the lock server, a meter registry, the settings, and the reconciler's
   * bearer tokens for the proxy and the rail statement.
   */
  public static Reconciler create(
      javax.sql.DataSource paydb,
      String proxyBaseUrl,
      String railStatementUrl,
      dev.fencepost.lock.client.LockTemplate locks,
      io.micrometer.core.instrument.MeterRegistry meters,
      ReconciliationSettings settings,
      dev.fencepost.security.BearerTokenSource credentials) {
    return create(
        paydb,
        proxyBaseUrl,
        new RailStatementSource(railStatementUrl, Duration.ofSeconds(10), credentials, 500),
        locks,
        meters,
        settings,
        credentials);
  }

  /** The same, with the statements from {@code statements} (e.g. a directory of files). */
  public static Reconciler create(
      javax.sql.DataSource paydb,
      String proxyBaseUrl,
      StatementSource statements,
      dev.fencepost.lock.client.LockTemplate locks,
      io.micrometer.core.instrument.MeterRegistry meters,
      ReconciliationSettings settings,
      dev.fencepost.security.BearerTokenSource credentials) {
    dev.fencepost.payment.PaymentResource payments =
        new dev.fencepost.payment.PaymentResource(paydb, meters);
    PaydbReads reads = new PaydbReads(paydb);
    Duration timeout = Duration.ofSeconds(10);
    ProxyReadClient proxy = new ProxyReadClient(proxyBaseUrl, timeout, credentials);
    return new Reconciler(
        new AmbiguityResolver(payments, reads, proxy, locks, settings),
        new Detector(
            reads,
            payments,
            proxy,
            statements,
            new StatementEntryStore(paydb),
            new WindowSubmissionStore(paydb),
            settings),
        new RunStore(paydb, settings.reconcilerId()),
        reads,
        new ReconciliationSignals(meters, reads, settings.sampleSize()));
  }

  /**
   * Runs once. Throws {@link SourceUnavailableException} (after recording the run as FAILED and
   * logging {@code reconciliation.failed}) when a source cannot be read: a partial comparison is
   * never reported as complete.
   *
   * @throws WindowTooLongException before anything is read or recorded, when the window is longer
   *     than {@code maxWindow} (ADR 0168)
   */
  public ReconciliationReport run(ReconciliationWindow window, String triggeredBy) {
    return run(window, triggeredBy, null);
  }

  /** The statement side of a window's run, as {@code reconciliationJob}'s chunk step runs it. */
  StatementScan scan() {
    return detector.scan();
  }

  /**
   * The same, after the window's statement was scanned under {@code scanKey} by {@code
   * reconciliationJob}'s chunk step (ADR 0178); null scans it here first, under the run's id.
   */
  public ReconciliationReport run(ReconciliationWindow window, String triggeredBy, String scanKey) {
    try {
      detector.settings().requireWithinMaxWindow(window);
    } catch (WindowTooLongException e) {
      log.atWarn()
          .addKeyValue("event", "reconciliation.window_refused")
          .addKeyValue("windowFrom", window.from())
          .addKeyValue("windowTo", window.to())
          .addKeyValue("triggeredBy", triggeredBy)
          .log("reconciliation refused: {}", e.getMessage());
      throw e;
    }
    UUID runId = UUID.randomUUID();
    Instant startedAt = reads.now();
    runs.start(runId, window, triggeredBy, startedAt);
    try {
      ResolutionSummary resolutions = resolver.resolveAll();
      Instant now = reads.now();
      Detection detection =
          scanKey == null
              ? detector.scanAndDetect(
                  window, now, resolutions.contentMismatches(), runId.toString())
              : detector.detect(window, now, resolutions.contentMismatches(), scanKey);
      Instant finishedAt = reads.now();
      Duration oldest =
          reads.oldestAmbiguousSince().map(s -> Duration.between(s, finishedAt)).orElse(null);
      ReconciliationReport report =
          new ReconciliationReport(
              runId,
              window,
              triggeredBy,
              startedAt,
              finishedAt,
              detection.counts(),
              detection.findings(),
              resolutions,
              oldest,
              detection.reads());
      runs.complete(report);
      signals.completed(report);
      return report;
    } catch (RuntimeException e) {
      Instant at = Instant.now();
      try {
        runs.fail(runId, e.toString(), at);
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      signals.failed(runId, window, e, at);
      throw e;
    }
  }
}
