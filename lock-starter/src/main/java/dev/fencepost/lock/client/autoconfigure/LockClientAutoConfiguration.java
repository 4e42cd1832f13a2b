package dev.fencepost.lock.client.autoconfigure;

import dev.fencepost.lock.client.LockClient;
import dev.fencepost.lock.client.LockClientMetrics;
import dev.fencepost.lock.client.LockLostListener;
import dev.fencepost.lock.client.LockTemplate;
import dev.fencepost.lock.client.impl.DefaultLockClient;
import dev.fencepost.lock.client.impl.DefaultLockTemplate;
import dev.fencepost.security.BearerTokenSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.web.client.RestClient;

/**
 * The lock client core: {@link LockClient} (one session, heartbeat, conservative deadline), {@link
 * LockTemplate}, and a no-op {@link LockClientMetrics} when no other is defined. Each bean backs
 * off when the application defines its own. Requests carry a bearer token from the {@link
 * BearerTokenSource} bean when there is one (security-support configures it from client credentials
 * or a token file); without one they carry none. Active only when {@code
 * fencepost.lock.client.base-url} is set and {@code fencepost.lock.client.enabled} is not false.
 */
@AutoConfiguration
@ConditionalOnClass(RestClient.class)
@ConditionalOnBooleanProperty(name = "fencepost.lock.client.enabled", matchIfMissing = true)
@ConditionalOnProperty(prefix = "fencepost.lock.client", name = "base-url")
@EnableConfigurationProperties(LockClientProperties.class)
public final class LockClientAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  LockClientMetrics lockClientMetrics() {
    return LockClientMetrics.NOOP;
  }

  @Bean
  @ConditionalOnMissingBean(LockClient.class)
  DefaultLockClient lockClient(
      LockClientProperties properties,
      Environment environment,
      LockClientMetrics metrics,
      ObjectProvider<LockLostListener> listeners,
      ObjectProvider<BearerTokenSource> tokens) {
    return new DefaultLockClient(
        properties.toSettings(DefaultOwner.of(environment)).withTokens(tokens.getIfAvailable()),
        metrics,
        listeners.orderedStream().toList());
  }

  @Bean
  @ConditionalOnMissingBean
  LockTemplate lockTemplate(LockClient lockClient, LockClientProperties properties) {
    return new DefaultLockTemplate(lockClient, properties.getWait());
  }
}
