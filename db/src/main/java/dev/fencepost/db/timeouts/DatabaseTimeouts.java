package dev.fencepost.db.timeouts;

import com.zaxxer.hikari.HikariConfig;
import java.time.Duration;
import java.util.Properties;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * How long any one thing done on a PostgreSQL connection may take, {@code fencepost.db.timeouts.*}:
 * the same for every pool of the application (lockdb, proxydb, paydb, batchdb). Without them a
 * connection whose peer went silent blocks its thread until the operating system gives up (minutes
 * to hours) and the server keeps that transaction's row locks as long. The defaults sit well inside
 * the lock lease (15 s TTL, 10.5 s local deadline, A-04) and are explained in decision record 0155.
 *
 * <p>The client-side bounds are pgjdbc's ({@code socketTimeout}, {@code connectTimeout}, {@code
 * loginTimeout}, all in whole seconds, rounded up) and HikariCP's {@code connectionTimeout}; the
 * server-side bounds travel as the startup parameter {@code options=-c statement_timeout=... -c
 * lock_timeout=... -c idle_in_transaction_session_timeout=...}, so they hold for every session
 * however it was opened and need no extra round trip. A setting written into the JDBC URL itself
 * wins over these (pgjdbc's rule); the shipped configuration writes none.
 */
@ConfigurationProperties("fencepost.db.timeouts")
public class DatabaseTimeouts {

  /**
   * How long a caller waits for a pooled connection, including opening a new one (TCP connect and
   * login), before it fails. A lock-server call then answers 503 BACKEND_UNAVAILABLE; a payout is
   * left for a later attempt, never half-written.
   */
  private Duration connectionTimeout = Duration.ofSeconds(5);

  /**
   * How long the driver waits for any answer from the server once it has sent something: the bound
   * on a black-holed connection. Must exceed {@link #statementTimeout}, so that a slow statement is
   * cancelled by the server (the connection stays usable) before the client gives up on the
   * connection.
   */
  private Duration socketTimeout = Duration.ofSeconds(8);

  /**
   * Server side: the longest a single statement may run ({@code statement_timeout}); it is then
   * cancelled and its transaction rolls back. Also bounds any lock wait inside the statement.
   */
  private Duration statementTimeout = Duration.ofSeconds(5);

  /**
   * Server side: the longest a statement waits for a row or table lock ({@code lock_timeout}); at
   * most {@link #statementTimeout}, so that a lock wait is reported as such (SQLState 55P03).
   */
  private Duration lockTimeout = Duration.ofSeconds(3);

  /**
   * Server side: how long a session may sit idle inside an open transaction before the server ends
   * it ({@code idle_in_transaction_session_timeout}), releasing its row locks. This is what frees
   * the locks of a client that vanished mid-transaction: no Fencepost transaction waits on anything
   * outside the database while it is open (ADR 0032).
   */
  private Duration idleInTransactionTimeout = Duration.ofSeconds(5);

  /**
   * Applies these bounds to {@code pool}, which must not have started yet. Merges into any {@code
   * options} the pool already passes.
   *
   * @throws IllegalStateException when a bound is not positive or the socket timeout does not
   *     exceed the statement timeout
   */
  public void applyTo(HikariConfig pool) {
    validate();
    pool.setConnectionTimeout(connectionTimeout.toMillis());
    Properties properties = pool.getDataSourceProperties();
    String connect = Long.toString(wholeSeconds(connectionTimeout));
    pool.addDataSourceProperty("connectTimeout", connect);
    pool.addDataSourceProperty("loginTimeout", connect);
    pool.addDataSourceProperty("socketTimeout", Long.toString(wholeSeconds(socketTimeout)));
    Object existing = properties.get("options");
    String ours = serverOptions();
    pool.addDataSourceProperty(
        "options",
        existing == null || existing.toString().isBlank() ? ours : existing + " " + ours);
  }

  /** The server-side bounds as a libpq {@code options} value. */
  public String serverOptions() {
    return "-c statement_timeout="
        + statementTimeout.toMillis()
        + " -c lock_timeout="
        + lockTimeout.toMillis()
        + " -c idle_in_transaction_session_timeout="
        + idleInTransactionTimeout.toMillis();
  }

  void validate() {
    requirePositive("connection-timeout", connectionTimeout);
    requirePositive("socket-timeout", socketTimeout);
    requirePositive("statement-timeout", statementTimeout);
    requirePositive("lock-timeout", lockTimeout);
    requirePositive("idle-in-transaction-timeout", idleInTransactionTimeout);
    // pgjdbc counts the socket timeout in whole seconds; compare what it will really wait.
    if (wholeSeconds(socketTimeout) * 1000 <= statementTimeout.toMillis()) {
      throw new IllegalStateException(
          "fencepost.db.timeouts.socket-timeout ("
              + socketTimeout
              + ") must exceed statement-timeout ("
              + statementTimeout
              + "): the server must cancel a slow statement before the client drops the"
              + " connection");
    }
    if (lockTimeout.compareTo(statementTimeout) > 0) {
      throw new IllegalStateException(
          "fencepost.db.timeouts.lock-timeout ("
              + lockTimeout
              + ") must not exceed statement-timeout ("
              + statementTimeout
              + ")");
    }
  }

  private static void requirePositive(String name, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalStateException(
          "fencepost.db.timeouts." + name + " must be positive, was " + value);
    }
  }

  private static long wholeSeconds(Duration duration) {
    long millis = duration.toMillis();
    return Math.max(1, (millis + 999) / 1000);
  }

  public Duration getConnectionTimeout() {
    return connectionTimeout;
  }

  public void setConnectionTimeout(Duration connectionTimeout) {
    this.connectionTimeout = connectionTimeout;
  }

  public Duration getSocketTimeout() {
    return socketTimeout;
  }

  public void setSocketTimeout(Duration socketTimeout) {
    this.socketTimeout = socketTimeout;
  }

  public Duration getStatementTimeout() {
    return statementTimeout;
  }

  public void setStatementTimeout(Duration statementTimeout) {
    this.statementTimeout = statementTimeout;
  }

  public Duration getLockTimeout() {
    return lockTimeout;
  }

  public void setLockTimeout(Duration lockTimeout) {
    this.lockTimeout = lockTimeout;
  }

  public Duration getIdleInTransactionTimeout() {
    return idleInTransactionTimeout;
  }

  public void setIdleInTransactionTimeout(Duration idleInTransactionTimeout) {
    this.idleInTransactionTimeout = idleInTransactionTimeout;
  }
}
