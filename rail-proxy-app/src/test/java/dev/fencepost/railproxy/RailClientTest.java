package dev.fencepost.railproxy;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The one JVM switch that would let the JDK client re-send a POST refuses to coexist (ADR 0042).
 */
@Tag("FR-20")
class RailClientTest {

  @AfterEach
  void clearFlag() {
    System.clearProperty(RailClient.ALL_METHOD_RETRY_FLAG);
  }

  @Test
  void theJdkAllMethodRetryFlagStopsTheRailClientFromStarting() {
    System.setProperty(RailClient.ALL_METHOD_RETRY_FLAG, "true");

    assertThatThrownBy(RailClient::refuseAutomaticPostRetry)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("never retries a submit");
  }

  @Test
  void withoutTheFlagTheRailClientStarts() {
    assertThatCode(RailClient::refuseAutomaticPostRetry).doesNotThrowAnyException();
    System.setProperty(RailClient.ALL_METHOD_RETRY_FLAG, "false");
    assertThatCode(RailClient::refuseAutomaticPostRetry).doesNotThrowAnyException();
  }
}
