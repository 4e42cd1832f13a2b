package dev.fencepost.lockserver.backend.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes waiting acquires when a key is freed, on this instance or any other: every release, revoke
 * and session close sends {@code NOTIFY fencepost_lock_freed, '<key>'} in its own transaction, and
 * this listener holds one {@code LISTEN} connection per lock-server instance.
 *
 * <p>A lost notification costs latency, never safety: a waiter also wakes at its deadline and at
 * the holder's expiry, and acquiring is always decided by the database.
 */
public final class ReleaseListener implements AutoCloseable {

  static final String CHANNEL = "fencepost_lock_freed";
  private static final Logger log = LoggerFactory.getLogger(ReleaseListener.class);

  private final DataSource dataSource;
  private final Map<String, Set<CountDownLatch>> waiting = new ConcurrentHashMap<>();
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

  /** Blocks up to {@code nanos} or until {@code key} is freed. */
  void awaitRelease(dev.fencepost.lock.LockKey key, long nanos) {
    CountDownLatch latch = new CountDownLatch(1);
    Set<CountDownLatch> latches =
        waiting.computeIfAbsent(key.value(), k -> ConcurrentHashMap.newKeySet());
    latches.add(latch);
    try {
      latch.await(nanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      latches.remove(latch);
      waiting.computeIfPresent(key.value(), (k, set) -> set.isEmpty() ? null : set);
    }
  }

  /** Wakes this instance's waiters for {@code key} at once, without the NOTIFY round trip. */
  void localWake(String key) {
    Set<CountDownLatch> latches = waiting.get(key);
    if (latches != null) {
      latches.forEach(CountDownLatch::countDown);
    }
  }

  private void wakeAll() {
    waiting.values().forEach(set -> set.forEach(CountDownLatch::countDown));
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
        wakeAll();
        while (running) {
          PGNotification[] notifications = pg.getNotifications(500);
          if (notifications != null) {
            for (PGNotification notification : notifications) {
              localWake(notification.getParameter());
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
