package dev.fencepost.bench;

import java.util.Locale;
import java.util.OptionalDouble;
import org.HdrHistogram.Histogram;

/**
 * The statistics every report quotes, with the rule for when a percentile may be quoted at all (ADR
 * 0183): a percentile p is a number only when at least {@value #TAIL_SAMPLES} samples lie beyond
 * it, so p99 needs 2,000 samples, p99.9 20,000, p90 200 and p50 40. Below that the report prints
 * {@value #NOT_ENOUGH} instead of a number that is one or two samples' luck. The maximum is always
 * quoted: it is an observation, not an estimate.
 */
public final class Stats {

  /** Samples that must lie beyond a quoted percentile. */
  public static final int TAIL_SAMPLES = 20;

  /** What a report prints for a percentile it may not quote. */
  public static final String NOT_ENOUGH = "not enough samples";

  /** Samples a cell needs for its p99 (the issue-20 rule, and {@link #minSamples} at 99). */
  public static final long P99_SAMPLES = minSamples(99);

  private Stats() {}

  /**
   * The fewest samples behind a quoted {@code percentile} (0-100, exclusive of 100): {@value
   * #TAIL_SAMPLES} / (1 - p), rounded up (after removing floating-point dust, so 99 gives exactly
   * 2,000).
   */
  public static long minSamples(double percentile) {
    if (!(percentile >= 0 && percentile < 100)) {
      throw new IllegalArgumentException("percentile must be in [0, 100): " + percentile);
    }
    double exact = TAIL_SAMPLES * 100.0 / (100.0 - percentile);
    return (long) Math.ceil(exact - 1e-9 * exact);
  }

  /** Whether {@code samples} are enough to quote {@code percentile}. */
  public static boolean quotable(long samples, double percentile) {
    return samples >= minSamples(percentile);
  }

  /** The percentile in ms, or empty when too few samples lie behind it. */
  public static OptionalDouble millis(Histogram h, double percentile) {
    if (h == null || !quotable(h.getTotalCount(), percentile)) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(h.getValueAtPercentile(percentile) / 1e6);
  }

  /** The percentile as a report prints it: ms with three decimals, or {@value #NOT_ENOUGH}. */
  public static String quote(Histogram h, double percentile) {
    OptionalDouble v = millis(h, percentile);
    return v.isPresent() ? String.format(Locale.ROOT, "%.3f", v.getAsDouble()) : NOT_ENOUGH;
  }

  /**
   * Jain's fairness index of the shares {@code x}: (sum x)^2 / (n * sum x^2). 1 when every client
   * got the same, 1/n when one client got everything; NaN when nobody got anything.
   */
  public static double jain(long[] x) {
    if (x.length == 0) {
      return Double.NaN;
    }
    double sum = 0;
    double squares = 0;
    for (long v : x) {
      if (v < 0) {
        throw new IllegalArgumentException("negative share " + v);
      }
      sum += v;
      squares += (double) v * v;
    }
    return squares == 0 ? Double.NaN : sum * sum / (x.length * squares);
  }
}
