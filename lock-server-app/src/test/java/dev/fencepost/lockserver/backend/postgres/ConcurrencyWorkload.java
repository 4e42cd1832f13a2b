package dev.fencepost.lockserver.backend.postgres;

import dev.fencepost.lock.LockException;
import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lockserver.backend.BackendUnavailableException;
import dev.fencepost.lockserver.backend.LockBackend;
import dev.fencepost.lockserver.history.GrantHistory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Threads, each with its own session, acquiring and releasing random keys with random hold times,
 * recording every grant. The hold is the workload's critical section, not a test wait.
 */
final class ConcurrencyWorkload {

  private ConcurrencyWorkload() {}

  static GrantHistory run(LockBackend backend, int threads, int keys, int pairs, String keyPrefix)
      throws Exception {
    GrantHistory history = new GrantHistory();
    AtomicInteger remaining = new AtomicInteger(pairs);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        String client = "worker-" + t;
        futures.add(
            pool.submit(
                () -> {
                  SessionId session =
                      backend.createSession(client, Duration.ofMinutes(5)).sessionId();
                  ThreadLocalRandom random = ThreadLocalRandom.current();
                  // Never below zero: a thread that finds nothing left must not take a pair from
                  // one whose failed acquire is about to put its pair back.
                  while (remaining.getAndUpdate(n -> Math.max(n - 1, 0)) > 0) {
                    LockKey key = LockKey.of(keyPrefix + random.nextInt(keys));
                    long invoked = System.nanoTime();
                    LockGrant grant;
                    try {
                      grant = backend.acquire(key, session, Duration.ofSeconds(10));
                    } catch (LockException | BackendUnavailableException e) {
                      remaining.incrementAndGet();
                      continue;
                    }
                    long completed = System.nanoTime();
                    LockSupport.parkNanos(random.nextLong(0, 1_000_000));
                    long releaseInvoked = System.nanoTime();
                    releaseUntilAnswered(backend, key, session, grant);
                    history.record(
                        new GrantHistory.Grant(
                            key.value(),
                            grant.token().value(),
                            client,
                            invoked,
                            completed,
                            releaseInvoked));
                  }
                  closeUntilAnswered(backend, session);
                  return null;
                }));
      }
      for (Future<?> future : futures) {
        future.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return history;
  }

  /** Release must reach the backend eventually, even across an outage, or the key stays held. */
  private static void releaseUntilAnswered(
      LockBackend backend, LockKey key, SessionId session, LockGrant grant) {
    while (true) {
      try {
        backend.release(key, session, grant.token());
        return;
      } catch (LockException e) {
        return; // not the holder any more (a broken backend may have handed the key on)
      } catch (BackendUnavailableException e) {
        LockSupport.parkNanos(50_000_000); // back off while lockdb is down
      }
    }
  }

  private static void closeUntilAnswered(LockBackend backend, SessionId session) {
    while (true) {
      try {
        backend.closeSession(session);
        return;
      } catch (BackendUnavailableException e) {
        LockSupport.parkNanos(50_000_000);
      }
    }
  }
}
