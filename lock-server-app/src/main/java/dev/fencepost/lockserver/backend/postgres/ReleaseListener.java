package dev.fencepost.lockserver.backend.postgres;

import dev.fencepost.lockserver.backend.WaitQueues;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes waiting acquires when a key is freed, on this instance or any other: every release, revoke
 * and session close sends {@code NOTIFY fencepost_lock_freed, '<key>'} in its own transaction, and
 * this listener holds one {@code LISTEN} connection per lock-server instance. A freed key wakes the
 * first of this instance's waiters for it ({@link WaitQueues}, ADR 0208).
 *
 * <p>A lost notification costs latency, never safety: a waiter also wakes at its deadline and at
 * the holder's expiry, and acquiring is always decided by the database. While the connection is
 * down nothing is heard, so on every (re)connect every waiter is woken once.
 */
public final class ReleaseListener implements AutoCloseable {

  static final String CHANNEL = "fencepost_lock_freed";
  private static final Logger log = LoggerFactory.getLogger(ReleaseListener.class);

  private final DataSource dataSource;
  private final WaitQueues waiters = new WaitQueues();
  private final AtomicLong heard = new AtomicLong();
  private final Thread thread;
  private volatile boolean running = true;

  public ReleaseListener(DataSource dataSource) {
    this.dataSource = dataSource;
    this.thread = new Thread(this::listen, "lockdb-release-listener");
    this.thread.setDaemon(true);
  }

  public void start() {
    thread.start();
  }

  /** This instance's waiting acquires, by key. */
  WaitQueues waiters() {
    return waiters;
  }

  /** Notifications heard so far, each counted after its wake (for tests). */
  long heard() {
    return heard.get();
  }

  /**
   * {@code key} was freed by this instance: wakes its first waiter here at once, without waiting
   * for the NOTIFY round trip (which wakes the first waiter on every other instance, and here
   * nobody while this wake's waiter has yet to attempt, ADR 0212).
   */
  void localWake(String key) {
    waiters.wake(key);
  }

  private void listen() {
    long backoffMillis = 100;
    while (running) {
      try (Connection connection = dataSource.getConnection()) {
        connection.setAutoCommit(true);
        try (Statement statement = connection.createStatement()) {
          statement.execute("LISTEN " + CHANNEL);
        }
        PGConnection pg = connection.unwrap(PGConnection.class);
        backoffMillis = 100;
        // Anything freed while we were not listening would otherwise be missed.
        waiters.wakeAll();
        while (running) {
          PGNotification[] notifications = pg.getNotifications(500);
          if (notifications != null) {
            for (PGNotification notification : notifications) {
              waiters.wake(notification.getParameter());
              heard.incrementAndGet();
            }
          }
        }
      } catch (SQLException e) {
        if (!running) {
          return;
        }
        log.atWarn()
            .addKeyValue("event", "lockdb.listener_disconnected")
            .addKeyValue("retryInMillis", backoffMillis)
            .log("release listener lost its lockdb connection: {}", e.getMessage());
        try {
          Thread.sleep(backoffMillis);
        } catch (InterruptedException interrupted) {
          return;
        }
        backoffMillis = Math.min(backoffMillis * 2, 5_000);
      }
    }
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
  }
}
