package dev.fencepost.launcher.postgres;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import liquibase.Scope;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;

/** One database on an {@link EmbeddedPostgresServer}, with a lazily created connection pool. */
public final class PostgresDatabase implements AutoCloseable {

  private final EmbeddedPostgresServer server;
  private final String name;
  private HikariDataSource pool;

  PostgresDatabase(EmbeddedPostgresServer server, String name) {
    this.server = server;
    this.name = name;
  }

  public String name() {
    return name;
  }

  public EmbeddedPostgresServer server() {
    return server;
  }

  public String jdbcUrl() {
    return server.jdbcUrl(name);
  }

  public String username() {
    return EmbeddedPostgresServer.USER;
  }

  public String password() {
    return EmbeddedPostgresServer.PASSWORD;
  }

  /** A pooled data source (up to 20 connections) owned by this object. */
  public synchronized DataSource dataSource() {
    if (pool == null) {
      pool = server.pool(name, 20);
    }
    return pool;
  }

  /** Applies a Liquibase changelog from the classpath, e.g. {@code db/changelog/lockdb/...}. */
  public PostgresDatabase applyChangelog(String changelogPath) {
    try (Connection connection = dataSource().getConnection()) {
      Database database =
          DatabaseFactory.getInstance()
              .findCorrectDatabaseImplementation(new JdbcConnection(connection));
      // Liquibase's console UI would print an update summary to standard output: it goes to the
      // log instead, so a launcher's console shows only what it chooses to.
      Scope.child(
          java.util.Map.of(
              Scope.Attr.resourceAccessor.name(),
              new ClassLoaderResourceAccessor(PostgresDatabase.class.getClassLoader()),
              Scope.Attr.ui.name(),
              new liquibase.ui.LoggerUIService()),
          () ->
              new CommandScope(UpdateCommandStep.COMMAND_NAME)
                  .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                  .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, changelogPath)
                  .addArgumentValue(
                      liquibase.command.core.helpers.ShowSummaryArgument.SHOW_SUMMARY_OUTPUT,
                      liquibase.UpdateSummaryOutputEnum.LOG)
                  .execute());
    } catch (SQLException e) {
      throw new IllegalStateException("could not connect to " + name, e);
    } catch (Exception e) {
      throw new IllegalStateException("could not apply " + changelogPath + " to " + name, e);
    }
    return this;
  }

  @Override
  public synchronized void close() {
    if (pool != null) {
      pool.close();
      pool = null;
    }
  }
}
