package dev.fencepost.db.durability;

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
 * Applies {@link DurableCommits} to every PostgreSQL HikariCP pool of a Spring Boot application
 * before it is first used, the pools Boot builds and those an application builds itself alike.
 */
@AutoConfiguration
@ConditionalOnClass(HikariDataSource.class)
@EnableConfigurationProperties(DurableCommits.class)
public final class DurableCommitsAutoConfiguration {

  private static final Logger log = LoggerFactory.getLogger(DurableCommitsAutoConfiguration.class);

  // Static, and reading the setting only when a pool appears: a post-processor is created before
  // ordinary beans, and binding the setting that early would skip post-processing of its own.
  @Bean
  static BeanPostProcessor durableCommitsPostProcessor(ObjectProvider<DurableCommits> durability) {
    return new BeanPostProcessor() {
      @Override
      public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (bean instanceof HikariDataSource pool && isPostgres(pool)) {
          DurableCommits settings = durability.getObject();
          if (settings.isAllowAsynchronousCommit()) {
            log.atWarn()
                .addKeyValue("event", "db.asynchronous_commit_allowed")
                .addKeyValue("pool", beanName)
                .log(
                    "synchronous_commit is left to the server (fencepost.db"
                        + ".allow-asynchronous-commit): a database crash may lose commits");
          }
          settings.applyTo(pool);
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
