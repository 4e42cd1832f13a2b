package dev.fencepost.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The README's run command, small: 60 payouts over 12 accounts, two worker processes racing. The
 * summary is read from the stores: no duplicate movement (INV-02), the ledger balances (INV-03),
 * every POSTED payout moved money once, and nothing actionable is left.
 */
class LocalStackTest {

  @Test
  void aSmallLocalRunEndsWithNoDuplicateAndABalancedLedger() throws Exception {
    LocalStack.Options options =
        new LocalStack.Options(60, 12, 2, "postgres", false, (Path) null, 0, false, 0.005);
    try (LocalStack stack = LocalStack.start(options)) {
      stack.seed();

      LocalStack.Summary summary = stack.runWorkers();

      assertThat(summary.duplicates()).isZero();
      assertThat(summary.ledgerBalanced()).isTrue();
      assertThat(summary.healthy()).isTrue();
      assertThat(summary.posted()).isPositive();
      assertThat(summary.railMovements()).isGreaterThanOrEqualTo(summary.posted());
      assertThat(summary.states().get("CLAIMED")).isZero();
      assertThat(summary.states().get("RAIL_SUBMITTED")).isZero();
      assertThat(summary.states().get("RAIL_ACKED")).isZero();
      assertThat(stack.actionable()).isZero();
      assertThat(summary.text()).contains("duplicates").contains("ledger balanced");
      assertThat(summary.json()).contains("\"duplicates\" : 0");

      LocalStack.Reconciliation reconciliation = stack.reconcile();
      assertThat(reconciliation.pages()).isZero();
      assertThat(reconciliation.counts()).containsKey("DUPLICATE_SUBMISSION");
      assertThat(summary.with(reconciliation).text()).contains("reconciliation");
    }
  }
}
