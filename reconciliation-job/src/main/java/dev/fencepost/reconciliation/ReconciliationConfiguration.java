package dev.fencepost.reconciliation;

import dev.fencepost.lock.client.LockTemplate;
import dev.fencepost.payment.PaymentResource;
import dev.fencepost.payment.autoconfigure.PaydbAutoConfiguration;
import dev.fencepost.security.BearerTokenSource;
import io.micrometer.core.instrument.MeterRegistry;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Wires the reconciler. paydb and the {@link PaymentResource} come from payment-resource's
 * auto-configuration ({@code fencepost.paydb.*}): a qualified, non-default DataSource, because
 * Boot's own {@code spring.datasource} is batchdb, the job repository (batch-support).
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ReconciliationProperties.class)
public class ReconciliationConfiguration {

  /**
   * Applies paydb's changelog to the auto-configured paydb DataSource as soon as it exists, so the
   * {@link dev.fencepost.payment.PaymentResource} built over it (which checks paydb's system
   * accounts) and everything else here see the migrated schema. Only with {@code
   * fencepost.reconciliation.migrate-paydb=true}: migrations are their own step (ADR 0160).
   */
  @Bean
  static BeanPostProcessor paydbMigration(Environment environment) {
    boolean migrate =
        environment.getProperty("fencepost.reconciliation.migrate-paydb", Boolean.class, false);
    return new BeanPostProcessor() {
      @Override
      public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (migrate
            && PaydbAutoConfiguration.DATA_SOURCE_BEAN.equals(beanName)
            && bean instanceof DataSource paydb) {
          PaydbMigration.apply(paydb);
        }
        return bean;
      }
    };
  }

  @Bean
  PaydbReads paydbReads(@Qualifier(PaydbAutoConfiguration.QUALIFIER) DataSource paydb) {
    return new PaydbReads(paydb);
  }

  @Bean
  ProxyReadClient proxyReadClient(
      ReconciliationProperties properties, ObjectProvider<BearerTokenSource> credentials) {
    return new ProxyReadClient(
        properties.proxyBaseUrl(), properties.httpTimeout(), credentials.getIfAvailable());
  }

  /**
   * The rail's statements (ADR 0176): over HTTP from the rail ({@code statement-source: rail}, the
   * default) or from the files a bank drops in {@code statement-directory} ({@code
   * statement-source: directory}).
   */
  @Bean
  StatementSource statementSource(
      ReconciliationProperties properties, ObjectProvider<BearerTokenSource> credentials) {
    return switch (properties.statementSource()) {
      case RAIL ->
          new RailStatementSource(
              properties.railStatementUrl(),
              properties.httpTimeout(),
              credentials.getIfAvailable(),
              properties.statementPageSize());
      case DIRECTORY -> {
        if (properties.statementDirectory() == null) {
          throw new IllegalStateException(
              "fencepost.reconciliation.statement-source=directory needs"
                  + " fencepost.reconciliation.statement-directory");
        }
        yield new DirectoryStatementSource(
            properties.statementDirectory(), properties.statementPageSize());
      }
    };
  }

  @Bean
  StatementEntryStore statementEntryStore(
      @Qualifier(PaydbAutoConfiguration.QUALIFIER) DataSource paydb) {
    return new StatementEntryStore(paydb);
  }

  @Bean
  Reconciler reconciler(
      ReconciliationProperties properties,
      PaymentResource paymentResource,
      PaydbReads reads,
      ProxyReadClient proxy,
      StatementSource statements,
      StatementEntryStore entries,
      LockTemplate locks,
      @Qualifier(PaydbAutoConfiguration.QUALIFIER) DataSource paydb,
      MeterRegistry meters) {
    ReconciliationSettings settings = properties.settings();
    return new Reconciler(
        new AmbiguityResolver(paymentResource, reads, proxy, locks, settings),
        new Detector(
            reads,
            paymentResource,
            proxy,
            statements,
            entries,
            new WindowSubmissionStore(paydb),
            settings),
        new RunStore(paydb, settings.reconcilerId()),
        reads,
        new ReconciliationSignals(meters, reads, settings.sampleSize()));
  }

  @Bean
  WindowLedger windowLedger(@Qualifier(PaydbAutoConfiguration.QUALIFIER) DataSource paydb) {
    return new WindowLedger(paydb);
  }

  /** Every window exactly once (ADR 0177): what the job does when it is given no window. */
  @Bean
  CatchUp catchUp(Reconciler reconciler, WindowLedger ledger, ReconciliationProperties properties) {
    return new CatchUp(reconciler, ledger, properties.catchUp(), java.time.Clock.systemUTC());
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

  /** Findings with owners (ADR 0179): {@code /actuator/findings}, an operator's. */
  @Bean
  FindingsEndpoint findingsEndpoint(
      @Qualifier(PaydbAutoConfiguration.QUALIFIER) DataSource paydb, MeterRegistry meters) {
    return new FindingsEndpoint(new FindingStore(paydb), meters);
  }
}
