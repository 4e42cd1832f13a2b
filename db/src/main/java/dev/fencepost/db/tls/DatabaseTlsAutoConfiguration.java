package dev.fencepost.db.tls;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.db.pool.PostgresPools;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Applies {@link DatabaseTls} to every PostgreSQL HikariCP pool of a Spring Boot application before
 * it is first used: Boot's {@code spring.datasource} (proxydb, batchdb) and the pools an
 * application builds itself (lockdb, paydb) alike, so that no pool connects in clear by being
 * forgotten. Invalid settings stop the application at start.
 */
@AutoConfiguration
@ConditionalOnClass(HikariDataSource.class)
@EnableConfigurationProperties(DatabaseTls.class)
public final class DatabaseTlsAutoConfiguration {

  private static final Logger log = LoggerFactory.getLogger(DatabaseTlsAutoConfiguration.class);

  // Static, so that it exists before the pools; it reads the settings only when a pool appears.
  @Bean
  static BeanPostProcessor databaseTlsPostProcessor(ObjectProvider<DatabaseTls> tls) {
    return PostgresPools.customizing(
        (pool, beanName) -> {
          DatabaseTls settings = tls.getObject();
          settings.applyTo(pool);
          var event = settings.getMode() == DatabaseTls.Mode.DISABLE ? log.atWarn() : log.atInfo();
          event
              .addKeyValue("event", "db.tls.configured")
              .addKeyValue("pool", beanName)
              .addKeyValue("sslmode", settings.getMode().sslmode())
              .addKeyValue("rootCert", settings.getRootCert() == null ? "" : settings.getRootCert())
              .addKeyValue("clientCertificate", settings.getClientCert() != null)
              .log("PostgreSQL pool connects with sslmode={}", settings.getMode().sslmode());
        });
  }
}
