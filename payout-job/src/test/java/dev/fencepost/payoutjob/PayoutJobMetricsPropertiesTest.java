package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** {@code fencepost.payout.metrics.*}: the paydb gauges' schedule and SLA, and their bounds. */
class PayoutJobMetricsPropertiesTest {

  private static PayoutJobProperties bind(Map<String, String> properties) {
    return new Binder(new MapConfigurationPropertySource(properties))
        .bindOrCreate("fencepost.payout", PayoutJobProperties.class);
  }

  @Test
  void defaultsAreOnEveryThirtySecondsWithTheFourHourSla() {
    PayoutJobProperties.Metrics metrics = bind(Map.of()).getMetrics();
    assertThat(metrics.isEnabled()).isTrue();
    assertThat(metrics.getRefresh()).isEqualTo(Duration.ofSeconds(30));
    assertThat(metrics.getAmbiguousSla()).isEqualTo(Duration.ofHours(4));
  }

  @Test
  void aRefreshBelowOneSecondOrANonPositiveSlaIsRefused() {
    assertThatThrownBy(() -> bind(Map.of("fencepost.payout.metrics.refresh", "100ms")))
        .hasRootCauseMessage("fencepost.payout.metrics.refresh must be at least 1s");
    assertThatThrownBy(() -> bind(Map.of("fencepost.payout.metrics.ambiguous-sla", "0s")))
        .hasRootCauseMessage("fencepost.payout.metrics.ambiguous-sla must be > 0");
    assertThat(bind(Map.of("fencepost.payout.metrics.refresh", "2m")).getMetrics().getRefresh())
        .isEqualTo(Duration.ofMinutes(2));
  }
}
