package dev.fencepost.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The reconciliation benchmark must not rot: a smoke size in the normal test command. It asserts
 * that every planted discrepancy of the six classes is found, by the statement scan and by the
 * comparison of submissions, postings and the ledger, and that none is invented; never a timing.
 */
class ReconciliationBenchSmokeTest {

  @Test
  void everyPlantedDiscrepancyIsFoundAndNoneIsInvented() {
    ReconciliationBench.Outcome outcome =
        ReconciliationBench.run(new ReconciliationBench.Settings(3_000, 200, 7), line -> {});

    assertThat(outcome.found()).isEqualTo(outcome.planted());
    assertThat(outcome.entries()).isEqualTo(3_014);
    assertThat(outcome.submissions()).isEqualTo(3_000);
    assertThat(outcome.planted()).hasSize(6).allSatisfy((d, n) -> assertThat(n).isEqualTo(7));
    assertThat(ReconciliationBench.report(outcome)).contains("3,000 payouts");
  }

  @Test
  void theReportHeaderNamesTheCommitAndTheLoadBeforeAndAfter() {
    assertThat(ReconciliationBench.header("abc123 (dirty: x)", "0.10 0.20 0.30", "1.10 1.20 1.30"))
        .contains(
            "commit abc123 (dirty: x)", "before the run 0.10 0.20 0.30", "after 1.10 1.20 1.30");
  }
}
