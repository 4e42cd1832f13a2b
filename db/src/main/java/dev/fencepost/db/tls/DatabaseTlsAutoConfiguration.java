package dev.fencepost.db.tls;

import com.zaxxer.hikari.HikariDataSource;
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

  // Static, and reading the settings only when a pool appears: a post-processor is created before
  // ordinary beans, and binding the settings that early would skip post-processing of their own.
  @Bean
  static BeanPostProcessor databaseTlsPostProcessor(ObjectProvider<DatabaseTls> tls) {
    return new BeanPostProcessor() {
      @Override
      public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (bean instanceof HikariDataSource pool && isPostgres(pool)) {
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
