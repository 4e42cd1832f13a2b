package dev.fencepost.lock.client.impl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Start-up validation: settings that would make the local deadline meaningless are refused. */
class LockClientSettingsTest {

  @Test
  void theDefaultsOfA04GiveAHeartbeatEveryFiveSecondsAndAMarginOfFourAndAHalf() {
    LockClientSettings settings = settings(Duration.ofSeconds(15), 0.3, Duration.ofSeconds(2));

    assertThat(settings.heartbeatInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(settings.margin()).isEqualTo(Duration.ofMillis(4500));
  }

  @ParameterizedTest
  @ValueSource(doubles = {0.0, 0.05, 0.61, 1.0, Double.NaN})
  void aSafetyMarginOutsideTheSafeRangeIsRefused(double margin) {
    assertThatThrownBy(() -> settings(Duration.ofSeconds(15), margin, Duration.ofSeconds(2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("safety-margin");
  }

  @Test
  void aReadTimeoutAsLongAsTheHeartbeatIntervalIsRefused() {
    assertThatThrownBy(() -> settings(Duration.ofSeconds(3), 0.3, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("heartbeat interval");
  }

  @Test
  void retryBoundsMustBeFinite() {
    assertThatThrownBy(
            () ->
                new LockClientSettings.Retry(
                    0, Duration.ofMillis(1), Duration.ofMillis(1), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                new LockClientSettings.Retry(
                    3, Duration.ofMillis(10), Duration.ofMillis(1), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static LockClientSettings settings(Duration ttl, double margin, Duration readTimeout) {
    return new LockClientSettings(
        URI.create("http://127.0.0.1:8081"),
        "owner",
        ttl,
        margin,
        Duration.ZERO,
        Duration.ofMillis(500),
        readTimeout,
        new LockClientSettings.Retry(
            4, Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(5)),
        null);
  }
}
