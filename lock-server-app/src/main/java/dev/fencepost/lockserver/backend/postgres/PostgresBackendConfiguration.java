package dev.fencepost.lockserver.backend.postgres;

import com.zaxxer.hikari.HikariDataSource;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import liquibase.integration.spring.SpringLiquibase;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Wires the PostgreSQL backend when {@code fencepost.lock.backend=postgres} (the default). The lock
 * server excludes Boot's DataSource and Liquibase auto-configuration so that an etcd-backed server
 * needs no database; this class builds both from the standard {@code spring.datasource.*}
 * properties instead. lockdb's changelog is applied by the migration step as lockdb's owner (ADR
 * 0160), at start only with {@code fencepost.lock.postgres.migrate=true}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(
    prefix = "fencepost.lock",
    name = "backend",
    havingValue = "postgres",
    matchIfMissing = true)
@EnableConfigurationProperties(PostgresBackendProperties.class)
public class PostgresBackendConfiguration {

  static final String LOCKDB_CHANGELOG = "classpath:db/changelog/lockdb/db.changelog-master.yaml";

  @Bean
  @ConfigurationProperties("spring.datasource")
  DataSourceProperties lockdbDataSourceProperties() {
    return new DataSourceProperties();
  }

  @Bean
  @ConfigurationProperties("spring.datasource.hikari")
  HikariDataSource lockdbDataSource(DataSourceProperties lockdbDataSourceProperties) {
    HikariDataSource dataSource =
        lockdbDataSourceProperties
            .initializeDataSourceBuilder()
            .type(HikariDataSource.class)
            .build();
    dataSource.setPoolName("lockdb");
    // Start even while lockdb is down; calls answer 503 until it is back (UC-08). How long a call
    // waits for lockdb, and every other bound, is fencepost.db.timeouts.* (the db module's
    // auto-configuration applies it to this pool as to every other; ADR 0155).
    dataSource.setInitializationFailTimeout(-1);
    return dataSource;
  }

  @Bean
  SpringLiquibase lockdbLiquibase(
      DataSource lockdbDataSource, PostgresBackendProperties properties) {
    SpringLiquibase liquibase = new SpringLiquibase();
    liquibase.setDataSource(lockdbDataSource);
    liquibase.setChangeLog(LOCKDB_CHANGELOG);
    // Only when asked (fencepost.lock.postgres.migrate): migrations are their own step (ADR 0160).
    liquibase.setShouldRun(properties.migrate());
    return liquibase;
  }

  /**
   * Applies {@code fencepost.lock.postgres.token-floor} before anything is served, so that a lockdb
   * restored from a backup cannot reissue a token the guards have already seen (INV-04, ADR 0003).
   */
  @Bean
  TokenFloor lockdbTokenFloor(
      DataSource lockdbDataSource,
      PostgresBackendProperties properties,
      SpringLiquibase liquibase) {
    TokenFloor floor = new TokenFloor(JdbcClient.create(lockdbDataSource));
    if (properties.tokenFloor() != null) {
      floor.raiseTo(properties.tokenFloor());
    }
    return floor;
  }

  @Bean(destroyMethod = "close")
  ReleaseListener lockdbReleaseListener(DataSource lockdbDataSource, SpringLiquibase liquibase) {
    ReleaseListener listener = new ReleaseListener(lockdbDataSource);
    listener.start();
    return listener;
  }

  @Bean
  SessionGrace lockdbSessionGrace(
      DataSource lockdbDataSource,
      PostgresBackendProperties properties,
      SpringLiquibase liquibase) {
    String instance =
        properties.instanceId() != null ? properties.instanceId() : "ls-" + UUID.randomUUID();
    return new SessionGrace(JdbcClient.create(lockdbDataSource), instance, properties.reapAfter());
  }

  @Bean(destroyMethod = "shutdownNow")
  ScheduledExecutorService lockdbBeacon(
      SessionGrace lockdbSessionGrace, PostgresBackendProperties properties) {
    ScheduledExecutorService scheduler =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "lockdb-beacon");
              thread.setDaemon(true);
              return thread;
            });
    long period = properties.beaconInterval().toMillis();
    scheduler.scheduleWithFixedDelay(
        () -> {
          try {
            lockdbSessionGrace.beat();
          } catch (RuntimeException e) {
            // Logged by the grace keeper; the next beat tries again.
          }
        },
        0,
        period,
        TimeUnit.MILLISECONDS);
    return scheduler;
  }

  @Bean
  PostgresLockBackend postgresLockBackend(
      TokenFloor lockdbTokenFloor,
      DataSource lockdbDataSource,
      ReleaseListener lockdbReleaseListener,
      SessionGrace lockdbSessionGrace,
      PostgresBackendProperties properties) {
    return new PostgresLockBackend(
        JdbcClient.create(lockdbDataSource),
        new TransactionTemplate(new DataSourceTransactionManager(lockdbDataSource)),
        lockdbReleaseListener,
        lockdbSessionGrace,
        properties.keepaliveGather());
  }
}
