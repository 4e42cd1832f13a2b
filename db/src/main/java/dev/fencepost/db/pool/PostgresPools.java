package dev.fencepost.db.pool;

import com.zaxxer.hikari.HikariDataSource;
import java.util.function.BiConsumer;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * The PostgreSQL HikariCP pools of a Spring Boot application, as the db module's
 * auto-configurations see them: each of them (timeouts, durable commits, TLS) sets something on
 * every such pool, Boot's {@code spring.datasource} and the pools an application builds itself
 * alike, before the pool is first used, so that no pool can be forgotten.
 */
public final class PostgresPools {

  private PostgresPools() {}

  /**
   * A post-processor that hands every PostgreSQL pool bean, with its bean name, to {@code
   * customizer} before the pool's first use. Declare it from a {@code static @Bean} method and let
   * the customizer read its settings only when called (through an {@code ObjectProvider}): a
   * post-processor is created before ordinary beans, and binding settings that early would skip
   * post-processing of their own.
   */
  public static BeanPostProcessor customizing(BiConsumer<HikariDataSource, String> customizer) {
    return new BeanPostProcessor() {
      @Override
      public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (bean instanceof HikariDataSource pool && isPostgres(pool)) {
          customizer.accept(pool, beanName);
        }
        return bean;
      }
    };
  }

  /** Whether {@code pool} connects to PostgreSQL, by its JDBC URL or its data source class. */
  public static boolean isPostgres(HikariDataSource pool) {
    String url = pool.getJdbcUrl();
    String dataSourceClass = pool.getDataSourceClassName();
    return (url != null && url.startsWith("jdbc:postgresql:"))
        || (dataSourceClass != null && dataSourceClass.startsWith("org.postgresql."));
  }
}
