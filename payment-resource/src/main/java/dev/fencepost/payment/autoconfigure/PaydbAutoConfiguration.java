package dev.fencepost.payment.autoconfigure;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.payment.PaymentResource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * paydb for a Spring Boot application: a HikariCP {@link DataSource} from {@link PaydbProperties}
 * ({@code fencepost.paydb.*}) and the {@link PaymentResource} over it. Active only when {@code
 * fencepost.paydb.url} is set.
 *
 * <p>The DataSource is not a default candidate and is qualified {@value #QUALIFIER}: Boot's own
 * DataSource auto-configuration, and everything built on it (Batch's job repository, Liquibase,
 * health), keeps to the application's {@code spring.datasource}, and only an injection point that
 * asks for {@code @Qualifier("paydb")} gets paydb. Nothing here migrates paydb.
 *
 * <p>Each bean backs off when the application defines its own: a {@link PaymentResource} of any
 * name (for example one built with other {@code PaymentResourceOptions}), or a DataSource named
 * {@value #DATA_SOURCE_BEAN} (by name, because the application's own {@code spring.datasource} must
 * not count as paydb). Metrics go to the application's {@link MeterRegistry}, or to Micrometer's
 * global registry when there is none.
 */
@AutoConfiguration(
    afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass(HikariDataSource.class)
@ConditionalOnProperty(prefix = "fencepost.paydb", name = "url")
@EnableConfigurationProperties(PaydbProperties.class)
public final class PaydbAutoConfiguration {

  /** The qualifier of paydb's DataSource. */
  public static final String QUALIFIER = "paydb";

  /** The bean name of paydb's DataSource; define a bean of this name to supply your own. */
  public static final String DATA_SOURCE_BEAN = "paydbDataSource";

  @Bean(name = DATA_SOURCE_BEAN, defaultCandidate = false)
  @Qualifier(QUALIFIER)
  @ConditionalOnMissingBean(name = DATA_SOURCE_BEAN)
  HikariDataSource paydbDataSource(PaydbProperties properties) {
    // Not started here: the pool opens on first use, after every post-processor has seen it (the
    // db module's applies fencepost.db.timeouts.*).
    HikariDataSource dataSource = new HikariDataSource();
    dataSource.setPoolName(QUALIFIER);
    dataSource.setJdbcUrl(properties.getUrl());
    dataSource.setUsername(properties.getUsername());
    dataSource.setPassword(properties.getPassword());
    dataSource.setMaximumPoolSize(properties.getMaximumPoolSize());
    dataSource.setValidationTimeout(properties.getValidationTimeout().toMillis());
    dataSource.setIdleTimeout(properties.getIdleTimeout().toMillis());
    return dataSource;
  }

  @Bean
  @ConditionalOnMissingBean
  PaymentResource paymentResource(
      @Qualifier(QUALIFIER) DataSource paydb, ObjectProvider<MeterRegistry> meterRegistry) {
    return new PaymentResource(paydb, meterRegistry.getIfAvailable(() -> Metrics.globalRegistry));
  }
}
