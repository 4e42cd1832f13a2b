package dev.fencepost.lock.client.impl;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** FR-28: full-jitter exponential backoff, bounded in attempts and in total time. */
@Tag("FR-28")
class BackoffTest {

  private final LockClientSettings.Retry retry =
      new LockClientSettings.Retry(
          5, Duration.ofMillis(100), Duration.ofMillis(800), Duration.ofSeconds(3));

  @Test
  void theCapDoublesPerAttemptUpToTheMaximum() {
    Backoff backoff = new Backoff(retry);

    assertThat(IntStream.rangeClosed(1, 6).mapToObj(backoff::cap).map(Duration::toMillis))
        .containsExactly(100L, 200L, 400L, 800L, 800L, 800L);
  }

  @Test
  void everyDelayIsUniformlySpreadBelowItsCap() {
    Backoff backoff = new Backoff(retry);
    long[] delays =
        IntStream.range(0, 10_000).mapToLong(i -> backoff.delay(3).toNanos()).sorted().toArray();
    long cap = Duration.ofMillis(400).toNanos();

    assertThat(delays[0]).isGreaterThanOrEqualTo(0).isLessThan(cap / 20);
    assertThat(delays[delays.length - 1]).isLessThanOrEqualTo(cap).isGreaterThan(cap * 19 / 20);
    assertThat((double) delays[delays.length / 2] / cap).isBetween(0.45, 0.55);
  }

  @Test
  void withoutJitterClientsWouldRetryInLockstep() {
    // The negative control of the jitter assertions: a fixed random draw makes every client wait
    // exactly as long as every other, which is the thundering herd UC-08 forbids.
    Backoff fixed = new Backoff(retry, () -> 0.5);
    Backoff jittered = new Backoff(retry);

    assertThat(IntStream.range(0, 100).mapToObj(i -> fixed.delay(2)).distinct()).hasSize(1);
    assertThat(IntStream.range(0, 100).mapToObj(i -> jittered.delay(2)).distinct().count())
        .isGreaterThan(90);
  }

  @Test
  void retriesStopAtTheAttemptBoundOrTheTimeBoundWhicheverComesFirst() {
    Backoff backoff = new Backoff(retry);

    assertThat(backoff.mayRetry(4, Duration.ofMillis(100), Duration.ofMillis(100))).isTrue();
    assertThat(backoff.mayRetry(5, Duration.ofMillis(100), Duration.ofMillis(100))).isFalse();
    assertThat(backoff.mayRetry(1, Duration.ofMillis(2900), Duration.ofMillis(100))).isFalse();
    assertThat(backoff.mayRetry(1, Duration.ofMillis(2800), Duration.ofMillis(100))).isTrue();
  }
}
