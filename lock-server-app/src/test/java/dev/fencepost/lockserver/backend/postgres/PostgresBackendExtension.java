package dev.fencepost.lockserver.backend.postgres;

import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test class's own lockdb (a fresh database with lockdb's changelog, on the JVM's shared embedded
 * PostgreSQL) and a PostgreSQL backend over it with its release listener, without Spring: how the
 * SPI-level tests start. Register it as a static field:
 *
 * <pre>{@code
 * @RegisterExtension static PostgresBackendExtension lockdb = new PostgresBackendExtension();
 * }</pre>
 *
 * A test that needs its own pool or server (a restart test) uses {@link PostgresBackends} directly.
 */
public final class PostgresBackendExtension implements BeforeAllCallback, AfterAllCallback {

  private final EmbeddedPostgresExtension lockdb =
      EmbeddedPostgresExtension.withChangelog(PostgresBackends.LOCKDB_CHANGELOG);
  private PostgresBackends.Running running;

  @Override
  public void beforeAll(ExtensionContext context) {
    lockdb.beforeAll(context);
    running = PostgresBackends.start(lockdb.dataSource());
  }

  @Override
  public void afterAll(ExtensionContext context) {
    try {
      if (running != null) {
        running.close();
      }
    } finally {
      running = null;
      lockdb.afterAll(context);
    }
  }

  public PostgresLockBackend backend() {
    return started().backend();
  }

  /** The backend's release listener, with this instance's waiting acquires. */
  public ReleaseListener listener() {
    return started().listener();
  }

  /** lockdb, for a test that reads or changes its rows directly. */
  public DataSource dataSource() {
    started();
    return lockdb.dataSource();
  }

  private PostgresBackends.Running started() {
    if (running == null) {
      throw new IllegalStateException(
          "PostgresBackendExtension is used before beforeAll: register it as a static field");
    }
    return running;
  }
}
