package dev.fencepost.console;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Where the findings page reads reconciliation's findings. Today: the last run's findings straight
 * from paydb ({@link PaydbFindings}), read-only. The findings' lifecycle (acknowledge, resolve) is
 * being built in reconciliation-job; when its endpoints exist, an implementation calling them with
 * the operator's token replaces this one and the page gains its actions (docs/console.md).
 */
public interface FindingsSource {

  /** The latest run. */
  Optional<ConsoleReads.Run> lastRun();

  /** That run's findings, of {@code severity} (PAGE, TICKET) or all when null. */
  List<ConsoleReads.Finding> findings(UUID runId, String severity);

  /** That run's count per discrepancy class, zeros included. */
  Map<String, Long> classCounts(UUID runId);
}
