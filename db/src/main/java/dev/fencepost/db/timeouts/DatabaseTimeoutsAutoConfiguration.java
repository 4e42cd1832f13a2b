package dev.fencepost.db.timeouts;

import com.zaxxer.hikari.HikariDataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Applies {@link DatabaseTimeouts} to every PostgreSQL HikariCP pool of a Spring Boot application
 * before it is first used: Boot's own {@code spring.datasource} (proxydb, batchdb) and the pools an
 * application builds itself (the lock server's lockdb, payment-resource's paydb) alike, so that no
 * pool can be forgotten. It runs after {@code spring.datasource.hikari.*} is bound, so for the
 * settings it owns {@code fencepost.db.timeouts.*} is the one that counts.
 */
@AutoConfiguration
@ConditionalOnClass(HikariDataSource.class)
@EnableConfigurationProperties(DatabaseTimeouts.class)
public final class DatabaseTimeoutsAutoConfiguration {

  // Static, and reading the settings only when a pool appears: a post-processor is created before
  // ordinary beans, and binding the settings that early would skip post-processing of their own.
  @Bean
  static BeanPostProcessor databaseTimeoutsPostProcessor(
      ObjectProvider<DatabaseTimeouts> timeouts) {
    return new BeanPostProcessor() {
      @Override
      public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (bean instanceof HikariDataSource pool && isPostgres(pool)) {
          timeouts.getObject().applyTo(pool);
        }
        return bean;
      }
    };
  }

  private static boolean isPostgres(HikariDataSource pool) {
    String url = pool.getJdbcUrl();
    String dataSourceClass = pool.getDataSourceClassName();
    return (url != null && url.startsWith("jdbc:postgresql:"))
        || (dataSourceClass != null && dataSourceClass.startsWith("org.postgresql."));
  }
}
