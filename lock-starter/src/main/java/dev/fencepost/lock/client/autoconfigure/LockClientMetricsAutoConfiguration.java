package dev.fencepost.lock.client.autoconfigure;

import dev.fencepost.lock.client.LockClientMetrics;
import dev.fencepost.lock.client.impl.MicrometerLockClientMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer metrics of the lock client, when Micrometer is on the classpath and a {@link
 * MeterRegistry} bean exists. Runs before the core so that the core's no-op recorder backs off.
 * Tags are bounded enums only (NFR-09).
 */
@AutoConfiguration(
    before = LockClientAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"
    })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "fencepost.lock.client.enabled", matchIfMissing = true)
@ConditionalOnProperty(prefix = "fencepost.lock.client", name = "base-url")
public final class LockClientMetricsAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  LockClientMetrics micrometerLockClientMetrics(MeterRegistry registry) {
    return new MicrometerLockClientMetrics(registry);
  }
}
