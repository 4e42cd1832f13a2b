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
    // Two payout threads per process and synchronous commits: the benchmark's options, small.
    LocalStack.Options options =
        new LocalStack.Options(
            60,
            12,
            2,
            "postgres",
            false,
            (Path) null,
            0,
            false,
            0.005,
            2,
            "0ms",
            true,
            null,
            100,
            null,
            0);
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
      LocalStack.Measures measures = summary.measures();
      assertThat(measures.workers()).isEqualTo(4);
      assertThat(measures.durability()).contains("synchronous_commit=on");
      assertThat(measures.attempts().get("POSTED")).isEqualTo(summary.posted());
      assertThat(measures.attemptMaxMillis()).isGreaterThanOrEqualTo(measures.attemptP50Millis());
      assertThat(summary.text()).contains("2 process(es) x 2 thread(s)");

      LocalStack.Reconciliation reconciliation = stack.reconcile();
      assertThat(reconciliation.pages()).isZero();
      assertThat(reconciliation.counts()).containsKey("DUPLICATE_SUBMISSION");
      assertThat(summary.with(reconciliation).text()).contains("reconciliation");
    }
  }

  @Test
  void theBenchmarkOptionsParseAndKeepTheLocalPlatformsDefaults() {
    LocalStack.Options bench =
        LocalStack.Options.parse(
            new String[] {
              "--workers",
              "2",
              "--concurrency",
              "16",
              "--rail-latency",
              "a07",
              "--synchronous-commit=on",
              "--page-size",
              "1000",
              "--jfr",
              "/tmp/jfr"
            });
    assertThat(bench.concurrency()).isEqualTo(16);
    assertThat(bench.railLatencyDistribution()).isEqualTo("LOGNORMAL");
    assertThat(bench.synchronousCommit()).isTrue();
    assertThat(bench.pageSize()).isEqualTo(1000);
    assertThat(bench.jfrDir()).isEqualTo(Path.of("/tmp/jfr"));
    assertThat(bench.railTimeout()).isEqualTo("10s");
    LocalStack.Options bounded =
        LocalStack.Options.parse(
            new String[] {"--rail-timeout", "10s", "--worker-deadline", "240"});
    assertThat(bounded.railTimeout()).isEqualTo("10s");
    assertThat(bounded.workerDeadlineSeconds()).isEqualTo(240);
    LocalStack.Options fixed = LocalStack.Options.parse(new String[] {"--rail-latency", "300ms"});
    assertThat(fixed.railLatencyDistribution()).isEqualTo("FIXED");
    assertThat(fixed.railLatencyFixed()).isEqualTo("300ms");
    LocalStack.Options plain = LocalStack.Options.parse(new String[] {});
    assertThat(plain.concurrency()).isEqualTo(1);
    assertThat(plain.synchronousCommit()).isFalse();
    assertThat(plain.railLatency()).isEqualTo("0ms");
    assertThat(plain.railTimeout()).isEqualTo("1s");
  }
}
