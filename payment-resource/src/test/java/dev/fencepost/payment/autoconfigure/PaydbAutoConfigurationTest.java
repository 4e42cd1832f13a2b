package dev.fencepost.payment.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.payment.PaymentResource;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

/** paydb's auto-configuration: wired from {@code fencepost.paydb.*}, and when it stays out. */
class PaydbAutoConfigurationTest {

  @RegisterExtension
  static EmbeddedPostgresExtension paydb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/paydb/db.changelog-master.yaml");

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(PaydbAutoConfiguration.class))
          .withBean(MeterRegistry.class, SimpleMeterRegistry::new);

  private String[] connection() {
    return new String[] {
      "fencepost.paydb.url=" + paydb.jdbcUrl(),
      "fencepost.paydb.username=" + paydb.database().username(),
      "fencepost.paydb.password=" + paydb.database().password()
    };
  }

  @Test
  void withAUrlItWiresAQualifiedPaydbPoolAndAPaymentResourceOverIt() {
    DataSource applicationDataSource = new SimpleDriverDataSource();
    runner
        .withBean("applicationDataSource", DataSource.class, () -> applicationDataSource)
        .withPropertyValues(connection())
        .withPropertyValues(
            "fencepost.paydb.maximum-pool-size=3",
            "fencepost.paydb.validation-timeout=1s",
            "fencepost.paydb.idle-timeout=1m")
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(PaymentResource.class);
              HikariDataSource pool =
                  context.getBean(PaydbAutoConfiguration.DATA_SOURCE_BEAN, HikariDataSource.class);
              assertThat(pool.getPoolName()).isEqualTo("paydb");
              assertThat(pool.getJdbcUrl()).isEqualTo(paydb.jdbcUrl());
              assertThat(pool.getMaximumPoolSize()).isEqualTo(3);
              assertThat(pool.getValidationTimeout()).isEqualTo(1_000);
              assertThat(pool.getIdleTimeout()).isEqualTo(60_000);
              // Not a default candidate: the application's own DataSource stays the one an
              // unqualified injection point gets.
              assertThat(context.getBean(DataSource.class)).isSameAs(applicationDataSource);
              // The resource reads paydb and reports to the application's registry.
              assertThat(context.getBean(PaymentResource.class).pendingCandidates(10)).isEmpty();
              assertThat(
                      context
                          .getBean(MeterRegistry.class)
                          .find("fencepost.fencing.enabled")
                          .gauge())
                  .isNotNull();
            });
  }

  @Test
  void withoutAUrlNothingIsWired() {
    runner
        .withPropertyValues("fencepost.paydb.username=someone")
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .doesNotHaveBean(PaymentResource.class)
                    .doesNotHaveBean(PaydbAutoConfiguration.DATA_SOURCE_BEAN)
                    .doesNotHaveBean(PaydbProperties.class));
  }

  @Test
  void anApplicationsOwnPaymentResourceReplacesOnlyTheResource() {
    PaymentResource own = new PaymentResource(paydb.dataSource(), new SimpleMeterRegistry());
    runner
        .withPropertyValues(connection())
        .withBean("ownPaymentResource", PaymentResource.class, () -> own)
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(PaymentResource.class);
              assertThat(context.getBean(PaymentResource.class)).isSameAs(own);
              assertThat(context).hasBean(PaydbAutoConfiguration.DATA_SOURCE_BEAN);
            });
  }

  @Test
  void anApplicationsOwnPaydbDataSourceIsTheOneTheResourceUses() {
    runner
        .withPropertyValues(connection())
        .withUserConfiguration(OwnPaydb.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(PaymentResource.class);
              assertThat(context.getBean(PaydbAutoConfiguration.DATA_SOURCE_BEAN))
                  .isSameAs(OwnPaydb.dataSource);
              assertThat(context.getBean(PaymentResource.class).pendingCandidates(10)).isEmpty();
            });
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnPaydb {

    static DataSource dataSource;

    // The pool belongs to the test's extension: the context must not close it.
    @Bean(
        name = PaydbAutoConfiguration.DATA_SOURCE_BEAN,
        defaultCandidate = false,
        destroyMethod = "")
    @Qualifier(PaydbAutoConfiguration.QUALIFIER)
    DataSource ownPaydb() {
      dataSource = paydb.dataSource();
      return dataSource;
    }
  }
}
