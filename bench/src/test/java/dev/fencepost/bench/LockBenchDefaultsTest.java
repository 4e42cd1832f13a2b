package dev.fencepost.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The defaults a full run takes (no bench.* properties) meet the method's rules (ADR 0183): every
 * cell at least 10 s, a warm-up before every measured run, runs extended towards the 2,000 samples
 * a p99 needs, the heartbeat load at least 10 s too.
 */
class LockBenchDefaultsTest {

  private final LockBench.Settings defaults = LockBench.fromProperties();

  @Test
  void everyCellIsMeasuredForAtLeastTenSeconds() {
    assertThat(defaults.plan().minCellSeconds()).isGreaterThanOrEqualTo(Report.MIN_CELL_SECONDS);
    assertThat(defaults.heartbeatDuration()).isGreaterThanOrEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void everyMeasuredRunWarmsUpFirst() {
    assertThat(defaults.plan().warmUp()).isPositive();
  }

  @Test
  void eachLockServerIsUnderLoadForTwoMinutesBeforeAnyCellSoItsCompilerHasSettled() {
    assertThat(defaults.serverWarmUp()).isEqualTo(Duration.ofSeconds(120));
  }

  @Test
  void aRunShortOfSamplesGoesOnTowardsTheTwoThousandAP99Needs() {
    assertThat(defaults.plan().samplesPerCell()).isEqualTo(Stats.P99_SAMPLES).isEqualTo(2_000);
    assertThat(defaults.plan().maxRun()).isGreaterThan(defaults.plan().run());
  }

  @Test
  void theHandOffHasSixteenWaiters() {
    assertThat(defaults.handoffWaiters()).isEqualTo(16);
  }
}
