package dev.fencepost.lockserver.backend.postgres;

import dev.fencepost.lockserver.backend.LockBackend;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The keepalive statements of a PostgreSQL lock server started for a test, for tests outside this
 * package: held back one at a time until released, and the keepalives queued behind them counted.
 */
public final class KeepAliveStatements implements AutoCloseable {

  private final KeepAliveBatcher batcher;
  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch entered = new CountDownLatch(1);

  private KeepAliveStatements(KeepAliveBatcher batcher) {
    this.batcher = batcher;
  }

  /**
   * From now on one statement at a time, each starting at once and held until {@link #close}.
   *
   * @param backend the server's backend, a PostgreSQL one
   */
  public static KeepAliveStatements holdEach(LockBackend backend) {
    KeepAliveStatements held =
        new KeepAliveStatements(((PostgresLockBackend) backend).keepAliveBatcher());
    held.batcher.maxConcurrentStatements(1);
    held.batcher.gatherWindow(Duration.ZERO);
    held.batcher.beforeStatement(
        () -> {
          held.entered.countDown();
          try {
            held.release.await(60, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    return held;
  }

  /** Whether a statement has started (and is held) within {@code timeout}. */
  public boolean awaitHeld(Duration timeout) throws InterruptedException {
    return entered.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Keepalives queued and not yet taken into a statement. */
  public int queued() {
    return batcher.queued();
  }

  /** Lets every statement run, now and from now on, with the batcher's settings restored. */
  @Override
  public void close() {
    batcher.beforeStatement(() -> {});
    release.countDown();
    batcher.maxConcurrentStatements(KeepAliveBatcher.MAX_CONCURRENT_STATEMENTS);
    batcher.gatherWindow(PostgresBackendProperties.DEFAULT_KEEPALIVE_GATHER);
  }
}
