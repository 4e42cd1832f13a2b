package dev.fencepost.reconciliation;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.lock.client.LockTemplate;
import dev.fencepost.payment.PaymentResource;
import io.micrometer.core.instrument.MeterRegistry;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires the reconciler. paydb is a qualified, non-default DataSource: Boot's own {@code
 * spring.datasource} is batchdb, the job repository (batch-support).
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ReconciliationProperties.class)
public class ReconciliationConfiguration {

  @Bean(name = "paydb", defaultCandidate = false, destroyMethod = "close")
  HikariDataSource paydb(ReconciliationProperties properties) {
    ReconciliationProperties.Paydb p = properties.paydb();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(p.url());
    config.setUsername(p.username());
    config.setPassword(p.password());
    config.setMaximumPoolSize(p.maxPoolSize());
    config.setPoolName("paydb");
    HikariDataSource dataSource = new HikariDataSource(config);
    if (p.migrate()) {
      PaydbMigration.apply(dataSource);
    }
    return dataSource;
  }

  @Bean
  PaymentResource paymentResource(@Qualifier("paydb") DataSource paydb, MeterRegistry meters) {
    return new PaymentResource(paydb, meters);
  }

  @Bean
  PaydbReads paydbReads(@Qualifier("paydb") DataSource paydb) {
    return new PaydbReads(paydb);
  }

  @Bean
  ProxyReadClient proxyReadClient(ReconciliationProperties properties) {
    return new ProxyReadClient(properties.proxyBaseUrl(), properties.httpTimeout());
  }

  @Bean
  RailStatement railStatement(ReconciliationProperties properties) {
    return new RailStatement(properties.railStatementUrl(), properties.httpTimeout());
  }

  @Bean
  Reconciler reconciler(
      ReconciliationProperties properties,
      PaymentResource paymentResource,
      PaydbReads reads,
      ProxyReadClient proxy,
      RailStatement statement,
      LockTemplate locks,
      @Qualifier("paydb") DataSource paydb,
      MeterRegistry meters) {
    ReconciliationSettings settings = properties.settings();
    return new Reconciler(
        new AmbiguityResolver(paymentResource, reads, proxy, locks, settings),
        new Detector(reads, paymentResource, proxy, statement, settings),
        new RunStore(paydb),
        reads,
        new ReconciliationSignals(meters, reads, settings.sampleSize()));
  }

  @Bean
  OperatorActions operatorActions(
      ReconciliationProperties properties,
      PaymentResource paymentResource,
      PaydbReads reads,
      LockTemplate locks,
      MeterRegistry meters) {
    return new OperatorActions(paymentResource, reads, locks, properties.settings(), meters);
  }

  @Bean
  PayoutOpsEndpoint payoutOpsEndpoint(OperatorActions actions) {
    return new PayoutOpsEndpoint(actions);
  }
}
