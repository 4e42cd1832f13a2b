package dev.fencepost.launcher.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A real PostgreSQL server on loopback, started from the zonky binaries on the class path.
 *
 * <p>{@link #shared()} is one server per JVM, started once and stopped by a shutdown hook (tests
 * take a fresh database on it through test-support's extension). {@link #startDedicated()} is a
 * server of the caller's own, which it may {@link #stop()} and {@link #start()} again on the same
 * port and data directory to simulate a database restart or outage.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {

  public static final String USER = "postgres";
  public static final String PASSWORD = "postgres";

  private static final AtomicInteger DATABASE_COUNTER = new AtomicInteger();

  /** How long a stop may take before it counts as failed. */
  private static final Duration STOP_TIMEOUT = Duration.ofMinutes(2);

  private static EmbeddedPostgresServer shared;

  private final Path dataDirectory;
  private final int port;
  private EmbeddedPostgres postgres;

  private EmbeddedPostgresServer(Path dataDirectory, int port) {
    this.dataDirectory = dataDirectory;
    this.port = port;
  }

  /** The server shared by every user in this JVM; started on first use. */
  public static synchronized EmbeddedPostgresServer shared() {
    if (shared == null) {
      shared = startDedicated();
      EmbeddedPostgresServer server = shared;
      Runtime.getRuntime().addShutdownHook(new Thread(server::close, "embedded-postgres-stop"));
    }
    return shared;
  }

  /** A server owned by the caller, which must close it. */
  public static EmbeddedPostgresServer startDedicated() {
    try {
      EmbeddedPostgresServer server =
          new EmbeddedPostgresServer(Files.createTempDirectory("fencepost-pg-"), freePort());
      server.start();
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Starts (or restarts) the server on its port and data directory, keeping all data. */
  public synchronized void start() {
    if (postgres != null) {
      return;
    }
    try {
      postgres =
          EmbeddedPostgres.builder()
              .setDataDirectory(dataDirectory)
              .setCleanDataDirectory(false)
              .setPort(port)
              .setPGStartupWait(Duration.ofSeconds(60))
              // Tests want many short-lived connections from several pools.
              .setServerConfig("max_connections", "300")
              .setServerConfig("fsync", "on")
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start embedded PostgreSQL on port " + port, e);
    }
  }

  /**
   * Stops the server (a fast shutdown), keeping its data for a later {@link #start()}, and returns
   * once its postmaster has exited. The library's stop gives up after 5 s and returns with the
   * postmaster still shutting down (its shutdown checkpoint can take longer on a loaded machine); a
   * start on the same data directory would then find the old postmaster's lock file and fail.
   */
  public synchronized void stop() {
    if (postgres == null) {
      return;
    }
    try {
      postgres.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      postgres = null;
    }
    awaitPostmasterExited(STOP_TIMEOUT);
  }

  /** The postmaster removes its {@code postmaster.pid} as the last step of its shutdown. */
  private void awaitPostmasterExited(Duration atMost) {
    Path pidFile = dataDirectory.resolve("postmaster.pid");
    long deadline = System.nanoTime() + atMost.toNanos();
    while (Files.exists(pidFile)) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "PostgreSQL in " + dataDirectory + " did not stop within " + atMost);
      }
      // The postmaster is not our child (pg_ctl started it); its lock file is what to wait on.
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
    }
  }

  Path dataDirectory() {
    return dataDirectory;
  }

  public synchronized boolean isRunning() {
    return postgres != null;
  }

  public int port() {
    return port;
  }

  /** A JDBC URL for {@code database} on this server. */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  /** Creates an empty database with a unique name starting with {@code prefix}. */
  public PostgresDatabase createDatabase(String prefix) {
    String name =
        (prefix.toLowerCase().replaceAll("[^a-z0-9_]", "_")
                + "_"
                + DATABASE_COUNTER.incrementAndGet())
            + "_"
            + ProcessHandle.current().pid();
    try (Connection c = java.sql.DriverManager.getConnection(jdbcUrl("postgres"), USER, PASSWORD);
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException("could not create database " + name, e);
    }
    return new PostgresDatabase(this, name);
  }

  /**
   * Sets {@code setting} for every session opened from now on by the server's user ({@code ALTER
   * ROLE ... SET}): a role setting beats the server's command line.
   */
  public void alterRole(String setting, String value) {
    if (!setting.matches("[a-z_]{1,63}") || !value.matches("[A-Za-z0-9_.]{1,63}")) {
      throw new IllegalArgumentException("not a setting: " + setting + "=" + value);
    }
    try (Connection c = java.sql.DriverManager.getConnection(jdbcUrl("postgres"), USER, PASSWORD);
        Statement s = c.createStatement()) {
      s.execute("ALTER ROLE \"" + USER + "\" SET " + setting + " = '" + value + "'");
    } catch (SQLException e) {
      throw new IllegalStateException("could not set " + setting, e);
    }
  }

  /** A small connection pool to {@code database}; the caller closes it. */
  public HikariDataSource pool(String database, int maxSize) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl(database));
    config.setUsername(USER);
    config.setPassword(PASSWORD);
    config.setMaximumPoolSize(maxSize);
    config.setMinimumIdle(0);
    config.setConnectionTimeout(10_000);
    // Fail fast at start-up only if the server is really down; a restart test re-connects later.
    config.setInitializationFailTimeout(-1);
    config.setPoolName("embedded-" + database);
    return new HikariDataSource(config);
  }

  @Override
  public synchronized void close() {
    stop();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }
}
