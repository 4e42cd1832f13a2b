package dev.fencepost.lock.client.impl;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Full-jitter exponential backoff (FR-28, UC-08 step 4): before attempt {@code n + 1}, wait a
 * uniformly random time in {@code [0, min(maxDelay, baseDelay * 2^(n-1))]}. The randomness spreads
 * clients that failed together, so a recovering lock server is not hit by a synchronised herd.
 */
public final class Backoff {

  private final LockClientSettings.Retry retry;
  private final DoubleSupplier random;

  /** Backoff with {@link ThreadLocalRandom}. */
  public Backoff(LockClientSettings.Retry retry) {
    this(retry, () -> ThreadLocalRandom.current().nextDouble());
  }

  /**
   * @param random uniform in {@code [0, 1)}; injectable so tests can pin it
   */
  public Backoff(LockClientSettings.Retry retry, DoubleSupplier random) {
    this.retry = retry;
    this.random = random;
  }

  /** The exponential cap before the attempt after {@code failedAttempts} failures (1-based). */
  public Duration cap(int failedAttempts) {
    long base = retry.baseDelay().toNanos();
    int shift = Math.min(Math.max(failedAttempts - 1, 0), 30);
    long exponential = base > (Long.MAX_VALUE >> shift) ? Long.MAX_VALUE : base << shift;
    return Duration.ofNanos(Math.min(exponential, retry.maxDelay().toNanos()));
  }

  /** A jittered delay in {@code [0, cap(failedAttempts)]}. */
  public Duration delay(int failedAttempts) {
    return Duration.ofNanos((long) (cap(failedAttempts).toNanos() * random.getAsDouble()));
  }

  /**
   * Whether another attempt may start: fewer than {@code maxAttempts} so far, and the next one
   * would start within {@code maxElapsed} of the first.
   */
  public boolean mayRetry(int attemptsSoFar, Duration elapsed, Duration nextDelay) {
    return attemptsSoFar < retry.maxAttempts()
        && elapsed.plus(nextDelay).compareTo(retry.maxElapsed()) < 0;
  }
}
