package dev.fencepost.reconciliation;

import java.time.Duration;

/**
 * How the reconciler walks time on its own (ADR 0177; properties {@code
 * fencepost.reconciliation.window-length}, {@code max-windows-per-run}, {@code late-entry-grace}).
 *
 * @param windowLength the length of every window; windows are aligned to it (an hour: every full
 *     hour, A-10) and at most {@code max-window}
 * @param maxWindowsPerRun the most windows (first passes and re-reads together) one run reconciles;
 *     the rest wait for the next run, oldest first
 * @param lateEntryGrace how long after a window closed it is read once more, for the statement
 *     entries booked in it that reached the statement late
 */
public record CatchUpSettings(
    Duration windowLength, int maxWindowsPerRun, Duration lateEntryGrace) {

  public CatchUpSettings {
    if (windowLength == null || windowLength.isNegative() || windowLength.isZero()) {
      throw new IllegalArgumentException("window-length must be positive, got " + windowLength);
    }
    if (windowLength.toMillis() % 1000 != 0
        || Duration.ofDays(1).toMillis() % windowLength.toMillis() != 0) {
      throw new IllegalArgumentException(
          "window-length must be whole seconds that divide a day, got " + windowLength);
    }
    if (maxWindowsPerRun < 1 || maxWindowsPerRun > 1000) {
      throw new IllegalArgumentException(
          "max-windows-per-run must be 1..1000, got " + maxWindowsPerRun);
    }
    if (lateEntryGrace == null || lateEntryGrace.isNegative()) {
      throw new IllegalArgumentException("late-entry-grace must not be negative");
    }
  }

  /** Hourly windows, a day of catch-up per run, re-read two hours after closing. */
  public static CatchUpSettings defaults() {
    return new CatchUpSettings(Duration.ofHours(1), 24, Duration.ofHours(2));
  }
}
