package dev.fencepost.railstub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Fault decisions repeat for a seed and follow the configured rates. */
@Tag("FR-21")
class FaultDeciderTest {

  private static final StubProperties.Latency FIXED_ZERO =
      new StubProperties.Latency(
          StubProperties.Distribution.FIXED,
          Duration.ZERO,
          Duration.ofMillis(300),
          Duration.ofSeconds(3),
          Duration.ofSeconds(30));

  private static final FaultPlan QUARTER_DECLINED =
      new FaultPlan(
          Map.of(FaultMode.DECLINE, 0.25, FaultMode.TIMEOUT_AFTER_SETTLE, 0.05),
          Map.of(),
          Duration.ZERO);

  @Test
  void theSameSeedRepeatsTheSameDecisionsWhateverTheArrivalOrder() {
    FaultDecider forward = new FaultDecider(7, FIXED_ZERO, QUARTER_DECLINED);
    FaultDecider backward = new FaultDecider(7, FIXED_ZERO, QUARTER_DECLINED);

    List<FaultMode> forwardModes = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      forwardModes.add(forward.decide("cref-" + i).mode());
    }
    List<FaultMode> backwardModes = new ArrayList<>();
    for (int i = 199; i >= 0; i--) {
      backwardModes.add(0, backward.decide("cref-" + i).mode());
    }

    assertThat(backwardModes).isEqualTo(forwardModes);
  }

  @Test
  void anotherSeedGivesOtherDecisions() {
    FaultDecider one = new FaultDecider(7, FIXED_ZERO, QUARTER_DECLINED);
    FaultDecider other = new FaultDecider(8, FIXED_ZERO, QUARTER_DECLINED);

    List<FaultMode> a = new ArrayList<>();
    List<FaultMode> b = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      a.add(one.decide("cref-" + i).mode());
      b.add(other.decide("cref-" + i).mode());
    }

    assertThat(a).isNotEqualTo(b);
  }

  @Test
  void decisionsFollowTheRates() {
    FaultDecider decider = new FaultDecider(42, FIXED_ZERO, QUARTER_DECLINED);
    int declined = 0;
    int ambiguous = 0;
    int n = 20_000;
    for (int i = 0; i < n; i++) {
      FaultMode mode = decider.decide("cref-" + i).mode();
      declined += mode == FaultMode.DECLINE ? 1 : 0;
      ambiguous += mode == FaultMode.TIMEOUT_AFTER_SETTLE ? 1 : 0;
    }

    assertThat(declined / (double) n).isBetween(0.23, 0.27);
    assertThat(ambiguous / (double) n).isBetween(0.04, 0.06);
  }

  @Test
  @Tag("A-07")
  void lognormalLatencyHasTheConfiguredMedian() {
    StubProperties.Latency a07 =
        new StubProperties.Latency(
            StubProperties.Distribution.LOGNORMAL,
            Duration.ZERO,
            Duration.ofMillis(300),
            Duration.ofSeconds(3),
            Duration.ofSeconds(30));
    FaultDecider decider =
        new FaultDecider(42, a07, new FaultPlan(Map.of(), Map.of(), Duration.ZERO));
    long[] samples = new long[10_001];
    for (int i = 0; i < samples.length; i++) {
      samples[i] = decider.decide("cref-" + i).nominalLatency().toMillis();
    }
    java.util.Arrays.sort(samples);

    assertThat(samples[5_000]).isBetween(270L, 330L);
    assertThat(samples[9_900]).isBetween(2_400L, 3_600L);
  }

  @Test
  void ratesAddingUpToMoreThanOneAreRefused() {
    assertThatThrownBy(
            () ->
                new FaultPlan(
                    Map.of(FaultMode.DECLINE, 0.6, FaultMode.RESET, 0.6), Map.of(), Duration.ZERO))
        .isInstanceOf(InvalidFaultPlanException.class);
  }
}
