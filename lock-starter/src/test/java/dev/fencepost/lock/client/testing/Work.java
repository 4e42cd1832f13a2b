package dev.fencepost.lock.client.testing;

import dev.fencepost.lock.client.LockClient;
import dev.fencepost.lock.client.LockedWork;
import dev.fencepost.lock.client.impl.DefaultLockTemplate;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Work under a lock on a thread of its own, as a worker does it, so that the test thread can pause,
 * revoke or stall it from outside.
 */
public final class Work {

  private Work() {}

  /**
   * Runs {@code work} through a {@link DefaultLockTemplate} of {@code client} on {@code key},
   * without waiting for the key, on another thread.
   */
  public static CompletableFuture<Void> inBackground(
      LockClient client, String key, LockedWork<Void> work) {
    return CompletableFuture.runAsync(
        () -> new DefaultLockTemplate(client, Duration.ZERO).execute(key, work));
  }

  /**
   * Blocks the work until the test releases {@code latch}; a latch never released fails the work
   * after 30 s rather than hanging the build.
   */
  public static void awaitQuietly(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("latch not released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * A point in the work where it stops until the test lets it go on, and that the test can wait for
   * the work to reach: the freeze of a paused process, or a step the test wants to come between.
   */
  public static final class Checkpoint {

    private final CountDownLatch reached = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    /** Called by the work: announces that it got here, then blocks until {@link #release()}. */
    public void reachAndWait() {
      reached.countDown();
      awaitQuietly(released);
    }

    /** Called by the test: whether the work got here within {@code timeout}. */
    public boolean reachedWithin(Duration timeout) throws InterruptedException {
      return reached.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Called by the test: the work goes on. */
    public void release() {
      released.countDown();
    }
  }
}
