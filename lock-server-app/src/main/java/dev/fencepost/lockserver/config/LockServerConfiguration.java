package dev.fencepost.lockserver.config;

import dev.fencepost.lockserver.backend.LockBackend;
import dev.fencepost.lockserver.grant.GrantSigner;
import dev.fencepost.lockserver.grant.GrantSigningProperties;
import dev.fencepost.lockserver.service.LockService;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The backend-independent part of the lock server. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({LockServerProperties.class, GrantSigningProperties.class})
public class LockServerConfiguration {

  /** Refuses to start without a signing key: an unsigned grant is useless to the proxy. */
  @Bean
  GrantSigner grantSigner(GrantSigningProperties properties) {
    return GrantSigner.fromJwkSetFile(properties.requiredJwkSetFile());
  }

  @Bean
  LockService lockService(
      LockBackend backend,
      LockServerProperties properties,
      GrantSigner signer,
      MeterRegistry meterRegistry) {
    return new LockService(backend, properties, signer, meterRegistry);
  }
}
