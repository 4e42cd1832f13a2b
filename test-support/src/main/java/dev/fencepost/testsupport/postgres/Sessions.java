package dev.fencepost.testsupport.postgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;

/**
 * What the database-timeout tests ask a real PostgreSQL about its sessions: the bounds a pool's
 * sessions carry, whether a session waits for a row lock, and a direct connection (not through a
 * test's black hole) that takes row locks.
 */
public final class Sessions {

  private Sessions() {}

  /** Row locks a direct transaction takes, one statement each. */
  @FunctionalInterface
  public interface RowLocker {
    void lock(Connection connection) throws SQLException;
  }

  /**
   * The bounds a session of {@code pool} carries on the server and on its socket: {@code
   * "statement_timeout lock_timeout idle_in_transaction_session_timeout, network N ms"}.
   */
  public static String timeouts(DataSource pool) throws SQLException {
    try (Connection c = pool.getConnection()) {
      return firstValue(
              c,
              "SELECT current_setting('statement_timeout') || ' '"
                  + " || current_setting('lock_timeout') || ' '"
                  + " || current_setting('idle_in_transaction_session_timeout')")
          + ", network "
          + c.getNetworkTimeout()
          + " ms";
    }
  }

  /** Whether a session of {@code db}'s database waits for a lock. */
  public static boolean aSessionWaitsForARowLock(DataSource db) throws SQLException {
    try (Connection c = db.getConnection()) {
      return Long.parseLong(
              firstValue(
                  c,
                  "SELECT count(*) FROM pg_stat_activity"
                      + " WHERE datname = current_database() AND wait_event_type = 'Lock'"))
          > 0;
    }
  }

  private static String firstValue(Connection c, String query) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet r = s.executeQuery(query)) {
      r.next();
      return r.getString(1);
    }
  }

  /** A connection to the database of {@code db} as its owner, straight to the server. */
  public static Connection direct(EmbeddedPostgresExtension db) throws SQLException {
    return DriverManager.getConnection(
        db.jdbcUrl(), db.database().username(), db.database().password());
  }

  /** Locks the one row {@code sql} selects {@code FOR UPDATE} with {@code param}. */
  public static void lockRow(Connection c, String sql, String param) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, param);
      try (ResultSet r = s.executeQuery()) {
        if (!r.next()) {
          throw new IllegalStateException("no row to lock: " + sql + " with " + param);
        }
      }
    }
  }

  /**
   * In the background, a direct transaction willing to wait {@code lockTimeout} takes the row locks
   * of {@code locker} and rolls back; it completes once it had them all, exceptionally if it gave
   * up waiting.
   */
  public static CompletableFuture<Void> lockDirectly(
      EmbeddedPostgresExtension db, Duration lockTimeout, RowLocker locker) {
    return CompletableFuture.runAsync(
        () -> {
          try (Connection c = direct(db)) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
              s.execute("SET LOCAL lock_timeout = '" + lockTimeout.toMillis() + "ms'");
            }
            locker.lock(c);
            c.rollback();
          } catch (SQLException e) {
            throw new IllegalStateException(e);
          }
        });
  }
}
