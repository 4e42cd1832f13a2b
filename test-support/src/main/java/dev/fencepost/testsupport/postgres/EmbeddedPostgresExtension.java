package dev.fencepost.testsupport.postgres;

import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Gives a test class a fresh database, with a Liquibase changelog applied, on the JVM's shared
 * embedded PostgreSQL server. Register it as a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static EmbeddedPostgresExtension lockdb =
 *     EmbeddedPostgresExtension.withChangelog("db/changelog/lockdb/db.changelog-master.yaml");
 * }</pre>
 *
 * Pass {@link #dedicatedServer()} to give the class a server of its own that it may stop and start
 * (for restart and outage tests).
 */
public final class EmbeddedPostgresExtension implements BeforeAllCallback, AfterAllCallback {

  private final String changelog;
  private final boolean dedicated;
  private EmbeddedPostgresServer server;
  private PostgresDatabase database;

  private EmbeddedPostgresExtension(String changelog, boolean dedicated) {
    this.changelog = changelog;
    this.dedicated = dedicated;
  }

  /** A fresh database with {@code changelog} applied (null for an empty database). */
  public static EmbeddedPostgresExtension withChangelog(String changelog) {
    return new EmbeddedPostgresExtension(changelog, false);
  }

  /** The same, on a server that belongs to this test class alone. */
  public EmbeddedPostgresExtension dedicatedServer() {
    return new EmbeddedPostgresExtension(changelog, true);
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    if (database != null) {
      return;
    }
    server = dedicated ? EmbeddedPostgresServer.startDedicated() : EmbeddedPostgresServer.shared();
    String prefix = context.getRequiredTestClass().getSimpleName();
    database = server.createDatabase(prefix.length() > 40 ? prefix.substring(0, 40) : prefix);
    if (changelog != null) {
      database.applyChangelog(changelog);
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (database != null) {
      database.close();
      database = null;
    }
    if (dedicated && server != null) {
      server.close();
    }
    server = null;
  }

  public PostgresDatabase database() {
    requireStarted();
    return database;
  }

  public DataSource dataSource() {
    return database().dataSource();
  }

  public String jdbcUrl() {
    return database().jdbcUrl();
  }

  public EmbeddedPostgresServer server() {
    requireStarted();
    return server;
  }

  private void requireStarted() {
    if (database == null) {
      throw new IllegalStateException(
          "EmbeddedPostgresExtension is used before beforeAll: register it as a static field");
    }
  }
}
