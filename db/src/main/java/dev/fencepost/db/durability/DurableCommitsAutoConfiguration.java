package dev.fencepost.db.durability;

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
 * Applies {@link DurableCommits} to every PostgreSQL HikariCP pool of a Spring Boot application
 * before it is first used, the pools Boot builds and those an application builds itself alike.
 */
@AutoConfiguration
@ConditionalOnClass(HikariDataSource.class)
@EnableConfigurationProperties(DurableCommits.class)
public final class DurableCommitsAutoConfiguration {

  private static final Logger log = LoggerFactory.getLogger(DurableCommitsAutoConfiguration.class);

  // Static, so that it exists before the pools; it reads the settings only when a pool appears.
  @Bean
  static BeanPostProcessor durableCommitsPostProcessor(ObjectProvider<DurableCommits> durability) {
    return PostgresPools.customizing(
        (pool, beanName) -> {
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
        });
  }
}
