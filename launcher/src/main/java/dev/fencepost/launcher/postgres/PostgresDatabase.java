package dev.fencepost.launcher.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.db.Migration;
import javax.sql.DataSource;

/**
 * One database on an {@link EmbeddedPostgresServer}, with its owner and runtime roles (ADR 0160)
 * and a lazily created connection pool as the server's superuser (for tests and tools).
 */
public final class PostgresDatabase implements AutoCloseable {

  /** A login role and its password. */
  public record Credentials(String username, String password) {
    @Override
    public String toString() {
      return "Credentials[" + username + "]";
    }
  }

  private final EmbeddedPostgresServer server;
  private final String name;
  private final Credentials owner;
  private final Credentials runtime;
  private HikariDataSource pool;

  PostgresDatabase(
      EmbeddedPostgresServer server, String name, Credentials owner, Credentials runtime) {
    this.server = server;
    this.name = name;
    this.owner = owner;
    this.runtime = runtime;
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

  /** The server's superuser: for tests and tools, never for an application. */
  public String username() {
    return EmbeddedPostgresServer.USER;
  }

  /** The superuser's password. */
  public String password() {
    return EmbeddedPostgresServer.PASSWORD;
  }

  /** The role that owns the database and its objects: what the migration step connects as. */
  public Credentials owner() {
    return owner;
  }

  /**
   * The runtime role: what an application connects as. It owns nothing and holds only the grants of
   * the database's changelog, once {@link #applyChangelog} has run.
   */
  public Credentials runtime() {
    return runtime;
  }

  /** A pooled data source (up to 20 connections) as the superuser, owned by this object. */
  public synchronized DataSource dataSource() {
    if (pool == null) {
      pool = server.pool(name, 20);
    }
    return pool;
  }

  /**
   * The migration step: applies a master changelog ({@code db/changelog/<db>/...}) as the owner
   * role, granting the runtime role what its application needs ({@link Migration}). Idempotent.
   */
  public PostgresDatabase applyChangelog(String changelogPath) {
    Migration.apply(
        jdbcUrl(),
        owner.username(),
        owner.password(),
        Migration.Target.ofChangelog(changelogPath),
        runtime.username());
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
