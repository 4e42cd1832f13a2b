package dev.fencepost.lock.client.autoconfigure;

import dev.fencepost.lock.client.LockClient;
import dev.fencepost.lock.client.impl.LockClientHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code fencepostLock} health indicator, reporting the client's session, when Spring Boot's
 * health support is on the classpath and a {@link LockClient} exists. Disable it with {@code
 * management.health.fencepostlock.enabled=false}.
 */
@AutoConfiguration(after = LockClientAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(LockClient.class)
@ConditionalOnEnabledHealthIndicator("fencepostlock")
public final class LockClientHealthAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "fencepostLockHealthIndicator")
  LockClientHealthIndicator fencepostLockHealthIndicator(LockClient lockClient) {
    return new LockClientHealthIndicator(lockClient);
  }
}
