package dev.fencepost.reconciliation;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The result of one run, as persisted in paydb ({@code reconciliation_run} and its children) and
 * logged as {@code reconciliation.completed}. A run with nothing to report still has a report, with
 * a zero for every class (UC-07).
 *
 * @param runId the run's id in paydb
 * @param window what was compared
 * @param triggeredBy who started it (job execution, operator, local platform)
 * @param startedAt paydb's clock at the start
 * @param finishedAt paydb's clock at the end
 * @param counts an exact count for every class
 * @param findings the findings persisted (at most {@code maxFindingsPerClass} per class)
 * @param resolutions what ambiguity resolution did
 * @param oldestAmbiguousAge age of the oldest payout still ambiguous after the run, or null
 * @param reads what the comparison read
 */
public record ReconciliationReport(
    UUID runId,
    ReconciliationWindow window,
    String triggeredBy,
    Instant startedAt,
    Instant finishedAt,
    Map<Discrepancy, Long> counts,
    List<Finding> findings,
    ResolutionSummary resolutions,
    Duration oldestAmbiguousAge,
    Detection.Reads reads) {

  public ReconciliationReport(
      UUID runId,
      ReconciliationWindow window,
      String triggeredBy,
      Instant startedAt,
      Instant finishedAt,
      Map<Discrepancy, Long> counts,
      List<Finding> findings,
      ResolutionSummary resolutions,
      Duration oldestAmbiguousAge) {
    this(
        runId,
        window,
        triggeredBy,
        startedAt,
        finishedAt,
        counts,
        findings,
        resolutions,
        oldestAmbiguousAge,
        Detection.Reads.NONE);
  }

  public long count(Discrepancy discrepancy) {
    return counts.getOrDefault(discrepancy, 0L);
  }

  public long total() {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }

  public long count(Severity severity) {
    return counts.entrySet().stream()
        .filter(e -> e.getKey().severity() == severity)
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  /** No discrepancy of any class. */
  public boolean clean() {
    return total() == 0;
  }
}
