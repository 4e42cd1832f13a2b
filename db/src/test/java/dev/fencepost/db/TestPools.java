package dev.fencepost.db;

import com.zaxxer.hikari.HikariDataSource;
import java.util.Properties;
import java.util.function.Supplier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * The pools the db module's auto-configuration tests hand to a context: none of them connects,
 * since each auto-configuration only sets a pool's properties before its first connection.
 */
public final class TestPools {

  private TestPools() {}

  /** A pool of {@code jdbcUrl}. */
  public static HikariDataSource pool(String jdbcUrl) {
    HikariDataSource pool = new HikariDataSource();
    pool.setJdbcUrl(jdbcUrl);
    return pool;
  }

  /** A pool of a PostgreSQL URL nothing listens on. */
  public static HikariDataSource postgres() {
    return pool("jdbc:postgresql://127.0.0.1:1/none");
  }

  /** A context of {@code autoConfigurations} holding one pool, made by {@code pool}. */
  public static ApplicationContextRunner runner(
      Supplier<HikariDataSource> pool, Class<?>... autoConfigurations) {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(autoConfigurations))
        .withBean("somePool", HikariDataSource.class, pool);
  }

  /** The data source properties of the context's one pool. */
  public static Properties properties(ApplicationContext context) {
    return context.getBean(HikariDataSource.class).getDataSourceProperties();
  }
}
