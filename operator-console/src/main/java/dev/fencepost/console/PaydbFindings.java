package dev.fencepost.console;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Component;

/** The findings as reconciliation recorded them in paydb, read on the console's read-only pool. */
@Component
class PaydbFindings implements FindingsSource {

  private final ConsoleReads reads;

  PaydbFindings(ConsoleReads reads) {
    this.reads = reads;
  }

  @Override
  public Optional<ConsoleReads.Run> lastRun() {
    return reads.lastRun();
  }

  @Override
  public List<ConsoleReads.Finding> findings(UUID runId, String severity) {
    return reads.findings(runId, severity);
  }

  @Override
  public Map<String, Long> classCounts(UUID runId) {
    return reads.classCounts(runId);
  }
}
