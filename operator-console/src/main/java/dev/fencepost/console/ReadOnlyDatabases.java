package dev.fencepost.console;

import com.zaxxer.hikari.HikariDataSource;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The console's database connections: read-only sessions (ADR 0186). Every session starts with
 * {@code default_transaction_read_only=on} (a startup parameter, so it holds before the first
 * statement and for every transaction, autocommit included) and the pool marks its connections
 * read-only: an UPDATE, an INSERT or a {@code SELECT ... FOR UPDATE} fails in the database whatever
 * role the console was given. The role should be a read-only one as well (locally a member of
 * {@code pg_read_all_data}); the db module's auto-configuration adds TLS and timeouts to each pool.
 */
@Configuration(proxyBeanMethods = false)
class ReadOnlyDatabases {

  /** The startup parameter every console session carries. */
  static final String READ_ONLY_OPTION = "-c default_transaction_read_only=on";

  @Bean
  @Primary
  HikariDataSource paydbDataSource(ConsoleProperties properties) {
    ConsoleProperties.Database paydb = properties.getPaydb();
    if (!paydb.configured()) {
      throw new IllegalStateException(
          "fencepost.console.paydb.url is not set: the console reads payouts from paydb");
    }
    return pool("paydb", paydb);
  }

  @Bean(defaultCandidate = false)
  @Qualifier("proxydb")
  @ConditionalOnProperty("fencepost.console.proxydb.url")
  HikariDataSource proxydbDataSource(ConsoleProperties properties) {
    return pool("proxydb", properties.getProxydb());
  }

  @Bean(defaultCandidate = false)
  @Qualifier("lockdb")
  @ConditionalOnProperty("fencepost.console.lockdb.url")
  HikariDataSource lockdbDataSource(ConsoleProperties properties) {
    return pool("lockdb", properties.getLockdb());
  }

  @Bean
  ConsoleReads reads(
      HikariDataSource paydbDataSource,
      @Qualifier("proxydb") ObjectProvider<HikariDataSource> proxydb,
      @Qualifier("lockdb") ObjectProvider<HikariDataSource> lockdb,
      ConsoleProperties properties) {
    return new ConsoleReads(
        JdbcClient.create(paydbDataSource),
        Optional.ofNullable(proxydb.getIfAvailable()).map(JdbcClient::create),
        Optional.ofNullable(lockdb.getIfAvailable()).map(JdbcClient::create),
        properties);
  }

  /** A read-only pool; public for the test that shows a write is refused through it. */
  static HikariDataSource pool(String name, ConsoleProperties.Database database) {
    HikariDataSource pool = new HikariDataSource();
    pool.setPoolName("console-" + name);
    pool.setJdbcUrl(database.getUrl());
    pool.setUsername(database.getUsername());
    pool.setPassword(database.getPassword());
    pool.setMaximumPoolSize(database.getMaximumPoolSize());
    pool.setMinimumIdle(0);
    pool.setReadOnly(true);
    // The console starts while a database is down; a page then says it could not read.
    pool.setInitializationFailTimeout(-1);
    pool.addDataSourceProperty("options", READ_ONLY_OPTION);
    pool.addDataSourceProperty("readOnlyMode", "always");
    return pool;
  }
}
