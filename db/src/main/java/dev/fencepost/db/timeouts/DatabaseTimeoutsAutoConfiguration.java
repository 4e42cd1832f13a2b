package dev.fencepost.db.timeouts;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.db.pool.PostgresPools;
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

  // Static, so that it exists before the pools; it reads the settings only when a pool appears.
  @Bean
  static BeanPostProcessor databaseTimeoutsPostProcessor(
      ObjectProvider<DatabaseTimeouts> timeouts) {
    return PostgresPools.customizing(
        (pool, beanName) -> {
          timeouts.getObject().applyTo(pool);
        });
  }
}
