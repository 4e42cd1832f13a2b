package dev.fencepost.lockserver.config;

import dev.fencepost.lockserver.backend.LockBackend;
import dev.fencepost.lockserver.grant.GrantSigner;
import dev.fencepost.lockserver.grant.GrantSigningProperties;
import dev.fencepost.lockserver.service.LockService;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/** The backend-independent part of the lock server. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({LockServerProperties.class, GrantSigningProperties.class})
public class LockServerConfiguration {

  /** Refuses to start without a signing key: an unsigned grant is useless to the proxy. */
  @Bean
  GrantSigner grantSigner(GrantSigningProperties properties) {
    return GrantSigner.fromJwkSetFile(properties.requiredJwkSetFile());
  }

  /**
   * Refuses to start when waiting acquires could take the request threads keepalives need (ADR
   * 0165): Tomcat serves every call from one pool, and a waiting acquire holds its thread.
   */
  @Bean
  LockService lockService(
      LockBackend backend,
      LockServerProperties properties,
      GrantSigner signer,
      MeterRegistry meterRegistry,
      Environment environment) {
    int threads = environment.getProperty("server.tomcat.threads.max", Integer.class, 200);
    if (properties.maxWaitingAcquires() + properties.reservedRequestThreads() > threads) {
      throw new IllegalStateException(
          "fencepost.lock.max-waiting-acquires ("
              + properties.maxWaitingAcquires()
              + ") + fencepost.lock.reserved-request-threads ("
              + properties.reservedRequestThreads()
              + ") exceeds server.tomcat.threads.max ("
              + threads
              + "): waiting acquires could hold every request thread and starve keepalives");
    }
    return new LockService(backend, properties, signer, meterRegistry);
  }
}
