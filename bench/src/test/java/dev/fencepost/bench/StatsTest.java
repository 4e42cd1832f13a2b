package dev.fencepost.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The percentile rule and the fairness index, on numbers worked out by hand. */
class StatsTest {

  private static Histogram samples(int n, long nanosEach) {
    Histogram h = LoadGenerator.histogram();
    for (int i = 0; i < n; i++) {
      h.recordValue(nanosEach);
    }
    return h;
  }

  @Test
  void aPercentileNeedsTwentySamplesBeyondIt() {
    assertThat(Stats.minSamples(99)).isEqualTo(2_000);
    assertThat(Stats.P99_SAMPLES).isEqualTo(2_000);
    assertThat(Stats.minSamples(99.9)).isEqualTo(20_000);
    assertThat(Stats.minSamples(90)).isEqualTo(200);
    assertThat(Stats.minSamples(50)).isEqualTo(40);
  }

  @Test
  void aP99BehindFewerThanTwoThousandSamplesIsNotQuoted() {
    // HdrHistogram keeps 3 significant digits: 1 ms is printed as 1.000.
    assertThat(Stats.quote(samples(1_999, 1_000_000), 99)).isEqualTo(Stats.NOT_ENOUGH);
    assertThat(Stats.millis(samples(1_999, 1_000_000), 99)).isEmpty();
    assertThat(Stats.quote(samples(1_999, 1_000_000), 50)).isEqualTo("1.000");
  }

  @Test
  void aP99BehindTwoThousandSamplesIsQuotedInMilliseconds() {
    Histogram h = samples(1_980, 1_000_000);
    for (int i = 0; i < 20; i++) {
      h.recordValue(9_000_000);
    }
    assertThat(h.getTotalCount()).isEqualTo(2_000);
    assertThat(Stats.quote(h, 99)).isEqualTo("1.000");
    assertThat(Stats.quote(h, 99.9)).isEqualTo(Stats.NOT_ENOUGH);
    assertThat(Stats.millis(h, 99)).hasValueCloseTo(1.0, within(0.001));
  }

  @Test
  void noHistogramQuotesNothing() {
    assertThat(Stats.quote(null, 50)).isEqualTo(Stats.NOT_ENOUGH);
    assertThat(Stats.quote(LoadGenerator.histogram(), 50)).isEqualTo(Stats.NOT_ENOUGH);
  }

  @Test
  void percentilesOutsideZeroToOneHundredAreRefused() {
    assertThatThrownBy(() -> Stats.minSamples(100)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Stats.minSamples(-1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void jainIsOneWhenEveryClientGotTheSame() {
    assertThat(Stats.jain(new long[] {5, 5, 5, 5})).isEqualTo(1.0);
    assertThat(Stats.jain(new long[] {7})).isEqualTo(1.0);
  }

  @Test
  void jainIsOneOverNWhenOneClientGotEverything() {
    assertThat(Stats.jain(new long[] {20, 0, 0, 0})).isEqualTo(0.25);
    assertThat(Stats.jain(new long[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9}))
        .isEqualTo(1.0 / 16);
  }

  @Test
  void jainOfAnUnevenShareIsTheSquaredSumOverNTimesTheSumOfSquares() {
    // (1 + 2 + 3)^2 / (3 * (1 + 4 + 9)) = 36 / 42
    assertThat(Stats.jain(new long[] {1, 2, 3})).isCloseTo(36.0 / 42, within(1e-12));
  }

  @Test
  void jainIsUndefinedWhenNobodyGotAnything() {
    assertThat(Stats.jain(new long[] {0, 0, 0})).isNaN();
    assertThat(Stats.jain(new long[0])).isNaN();
    assertThatThrownBy(() -> Stats.jain(new long[] {1, -1}))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
