package dev.fencepost.lockserver.config;

import dev.fencepost.lockserver.backend.LockBackend;
import dev.fencepost.lockserver.service.LockService;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The backend-independent part of the lock server. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(LockServerProperties.class)
public class LockServerConfiguration {

  @Bean
  LockService lockService(
      LockBackend backend, LockServerProperties properties, MeterRegistry meterRegistry) {
    return new LockService(backend, properties, meterRegistry);
  }
}
