package dev.fencepost.lockserver.backend.postgres;

import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** Builds a PostgreSQL backend over a test database, without Spring, for SPI-level tests. */
public final class PostgresBackends {

  public static final String LOCKDB_CHANGELOG = "db/changelog/lockdb/db.changelog-master.yaml";

  private PostgresBackends() {}

  /** A running backend with its release listener; close it after the test class. */
  public record Running(PostgresLockBackend backend, ReleaseListener listener, SessionGrace grace)
      implements AutoCloseable {
    @Override
    public void close() {
      listener.close();
    }
  }

  public static Running start(DataSource dataSource) {
    JdbcClient jdbc = JdbcClient.create(dataSource);
    TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
    ReleaseListener listener = new ReleaseListener(dataSource);
    listener.start();
    SessionGrace grace = new SessionGrace(jdbc, "test-" + UUID.randomUUID(), Duration.ofMinutes(5));
    return new Running(
        new PostgresLockBackend(
            jdbc, tx, listener, grace, PostgresBackendProperties.DEFAULT_KEEPALIVE_GATHER),
        listener,
        grace);
  }
}
