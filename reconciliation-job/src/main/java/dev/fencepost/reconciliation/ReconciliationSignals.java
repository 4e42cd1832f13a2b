package dev.fencepost.reconciliation;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * Events and meters of the reconciler (NFR-08, NFR-09). Events carry ids, bounded to a sample;
 * meters carry only the class and severity (both closed enums) and a result.
 *
 * <ul>
 *   <li>{@code reconciliation.finding}: one per class with a non-zero count; ERROR for PAGE, WARN
 *       for TICKET; fields discrepancy, severity, count, sample (at most {@code sampleSize} ids),
 *       runId.
 *   <li>{@code reconciliation.completed}: every completed run, zero findings included, with every
 *       class's count.
 *   <li>{@code reconciliation.failed}: a run that could not compare (a source unreachable).
 * </ul>
 *
 * Meters: {@code fencepost.reconciliation.findings{discrepancy,severity}} (counter), {@code
 * fencepost.reconciliation.findings.last{discrepancy,severity}} (gauge, last run), {@code
 * fencepost.reconciliation.runs{result}}, {@code
 * fencepost.reconciliation.last.completed.epoch.seconds} and {@code
 * fencepost.reconciliation.ambiguous.oldest.age.seconds} (the A-10 SLI, 0 when none).
 */
public class ReconciliationSignals {

  private static final Logger log = LoggerFactory.getLogger(Reconciler.class);

  private final MeterRegistry meters;
  private final int sampleSize;
  private final Map<Discrepancy, AtomicLong> last = new EnumMap<>(Discrepancy.class);
  private final AtomicLong lastCompleted = new AtomicLong();

  public ReconciliationSignals(MeterRegistry meters, PaydbReads reads, int sampleSize) {
    this.meters = meters;
    this.sampleSize = sampleSize;
    for (Discrepancy d : Discrepancy.values()) {
      AtomicLong value = new AtomicLong();
      last.put(d, value);
      Gauge.builder("fencepost.reconciliation.findings.last", value, AtomicLong::doubleValue)
          .tag("discrepancy", d.name())
          .tag("severity", d.severity().name())
          .description("findings of this class in the last completed run")
          .register(meters);
    }
    Gauge.builder(
            "fencepost.reconciliation.last.completed.epoch.seconds",
            lastCompleted,
            AtomicLong::doubleValue)
        .description("when the last run completed; a stale value is a silent reconciler")
        .register(meters);
    // Read live from paydb at scrape time: the age grows between runs, which is the point.
    Gauge.builder("fencepost.reconciliation.ambiguous.oldest.age.seconds", reads, r -> age(r))
        .description("age of the oldest RAIL_AMBIGUOUS payout, 0 when there is none")
        .baseUnit("seconds")
        .register(meters);
  }

  private static double age(PaydbReads reads) {
    try {
      return reads
          .oldestAmbiguousSince()
          .map(since -> (double) Duration.between(since, reads.now()).toSeconds())
          .orElse(0.0);
    } catch (RuntimeException e) {
      return Double.NaN;
    }
  }

  void completed(ReconciliationReport report) {
    for (Discrepancy d : Discrepancy.values()) {
      long count = report.count(d);
      last.get(d).set(count);
      if (count == 0) {
        continue;
      }
      meters
          .counter(
              "fencepost.reconciliation.findings",
              "discrepancy",
              d.name(),
              "severity",
              d.severity().name())
          .increment(count);
      List<String> sample =
          report.findings().stream()
              .filter(f -> f.discrepancy() == d)
              .limit(sampleSize)
              .map(Finding::subject)
              .toList();
      LoggingEventBuilder event = d.severity() == Severity.PAGE ? log.atError() : log.atWarn();
      event
          .addKeyValue("event", "reconciliation.finding")
          .addKeyValue("runId", report.runId())
          .addKeyValue("discrepancy", d.name())
          .addKeyValue("severity", d.severity().name())
          .addKeyValue("count", count)
          .addKeyValue("sample", sample)
          .log("reconciliation found " + count + " x " + d.name());
    }
    lastCompleted.set(report.finishedAt().getEpochSecond());
    meters.counter("fencepost.reconciliation.runs", "result", "completed").increment();
    Map<String, Long> counts = new java.util.LinkedHashMap<>();
    report.counts().forEach((d, n) -> counts.put(d.name(), n));
    ResolutionSummary r = report.resolutions();
    log.atInfo()
        .addKeyValue("event", "reconciliation.completed")
        .addKeyValue("runId", report.runId())
        .addKeyValue("windowFrom", report.window().from())
        .addKeyValue("windowTo", report.window().to())
        .addKeyValue("triggeredBy", report.triggeredBy())
        .addKeyValue("total", report.total())
        .addKeyValue("page", report.count(Severity.PAGE))
        .addKeyValue("ticket", report.count(Severity.TICKET))
        .addKeyValue("counts", counts)
        .addKeyValue("resolvedSettled", r.settled())
        .addKeyValue("resolvedAbsent", r.absent())
        .addKeyValue("stillAmbiguous", r.stillAmbiguous())
        .addKeyValue(
            "oldestAmbiguousAgeSeconds",
            report.oldestAmbiguousAge() == null ? 0 : report.oldestAmbiguousAge().toSeconds())
        .addKeyValue(
            "durationMillis", Duration.between(report.startedAt(), report.finishedAt()).toMillis())
        .log("reconciliation completed: " + report.total() + " discrepancies");
  }

  void failed(java.util.UUID runId, ReconciliationWindow window, Exception e, Instant at) {
    meters.counter("fencepost.reconciliation.runs", "result", "failed").increment();
    log.atError()
        .addKeyValue("event", "reconciliation.failed")
        .addKeyValue("runId", runId)
        .addKeyValue("windowFrom", window.from())
        .addKeyValue("windowTo", window.to())
        // No "error" key of its own: the cause is written as ECS's `error` object (type, message,
        // stack trace), and a second `error` made the encoder drop the whole event.
        .setCause(e)
        .log("reconciliation failed at " + at);
  }
}
