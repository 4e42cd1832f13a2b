package dev.fencepost.lockserver.backend.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The PostgreSQL backend's settings: defaults, and a gather window that is refused at start-up. */
class PostgresBackendPropertiesTest {

  @Test
  void unsetSettingsTakeTheirDocumentedDefaults() {
    PostgresBackendProperties properties =
        new PostgresBackendProperties(null, null, null, null, false, null);

    assertThat(properties.beaconInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(properties.reapAfter()).isEqualTo(Duration.ofMinutes(5));
    assertThat(properties.keepaliveGather()).isEqualTo(Duration.ofMillis(10));
  }

  @Test
  void aGatherWindowOfZeroIsAllowedAndMeansNoWaiting() {
    assertThat(
            new PostgresBackendProperties(null, null, null, null, false, Duration.ZERO)
                .keepaliveGather())
        .isZero();
  }

  @Test
  void aNegativeGatherWindowIsRefusedWithTheSettingsName() {
    assertThatThrownBy(
            () ->
                new PostgresBackendProperties(null, null, null, null, false, Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fencepost.lock.postgres.keepalive-gather");
  }

  @Test
  void aGatherWindowLongerThanOneSecondIsRefusedBecauseItWouldEatTheHeartbeatsMargin() {
    assertThatThrownBy(
            () ->
                new PostgresBackendProperties(
                    null, null, null, null, false, Duration.ofMillis(1001)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("between 0 and 1000 ms");
  }
}
