package dev.fencepost.lockserver.backend.etcd;

import io.etcd.jetcd.Client;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires the etcd backend when {@code fencepost.lock.backend=etcd} (FR-09). Needs no database: the
 * lock server excludes DataSource and Liquibase auto-configuration, and only the PostgreSQL backend
 * builds them.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(prefix = "fencepost.lock", name = "backend", havingValue = "etcd")
@EnableConfigurationProperties(EtcdBackendProperties.class)
public class EtcdBackendConfiguration {

  /** The jetcd client; closed with the application context, which ends its channels and watches. */
  @Bean(destroyMethod = "close")
  Client fencepostEtcdClient(EtcdBackendProperties properties) {
    return EtcdClients.create(properties);
  }

  /** etcd's leader elections as a counter (NFR-02, ADR 0175); stopped with the context. */
  @Bean(destroyMethod = "close")
  EtcdLeaderChanges etcdLeaderChanges(
      Client fencepostEtcdClient, EtcdBackendProperties properties, MeterRegistry meters) {
    return new EtcdLeaderChanges(
            fencepostEtcdClient.getKVClient(),
            properties.keyPrefix(),
            properties.callTimeout(),
            meters)
        .start(properties.leaderPoll());
  }

  /**
   * The backend. When a revision floor is configured (after a restore from backup, ADR 0016), the
   * lock server does not start serving until etcd's revision is past it.
   */
  @Bean
  EtcdLockBackend etcdLockBackend(Client fencepostEtcdClient, EtcdBackendProperties properties) {
    EtcdLockBackend backend =
        new EtcdLockBackend(
            fencepostEtcdClient,
            properties.keyPrefix(),
            properties.callTimeout(),
            properties.operationTimeout(),
            Clock.systemUTC());
    if (properties.revisionFloor() > 0) {
      backend.advanceRevisionPast(properties.revisionFloor());
    }
    return backend;
  }

  /**
   * {@code etcd} in the health endpoint; the chart puts it in the readiness group of a lock server
   * on etcd.
   */
  @Bean
  EtcdHealthIndicator etcdHealthIndicator(
      Client fencepostEtcdClient, EtcdBackendProperties properties) {
    return new EtcdHealthIndicator(
        fencepostEtcdClient.getKVClient(), properties.keyPrefix(), properties.operationTimeout());
  }
}
