package dev.fencepost.lockserver.backend.etcd;

import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.LockNotAcquiredException;
import dev.fencepost.lock.NotHolderException;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lock.SessionNotFoundException;
import dev.fencepost.lockserver.backend.BackendUnavailableException;
import dev.fencepost.lockserver.backend.LockBackend;
import dev.fencepost.lockserver.history.GrantHistory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Client threads that acquire and release a few keys against one backend as fast as it answers,
 * recording every grant in a {@link GrantHistory} and every acquire's time to an answer, while a
 * test faults the etcd cluster underneath.
 *
 * <p>Each thread is one client with one session, heartbeated about every second from its own loop
 * (TTL 10 s, so an election never costs a session). An acquire is retried on the same key until the
 * backend answers (grant or "held"): a lost answer may hide a committed grant, and the same session
 * acquiring again is how the backend hands that grant back (same token). A release is retried until
 * it answers; {@code NOT_HOLDER} on a retry means the lost first attempt had released it.
 *
 * <p>"Answered" is the availability signal: a grant and a legitimate "held by another" both mean
 * the lock service decided; {@link BackendUnavailableException} means it could not.
 */
final class EtcdLockWorkload {

  private static final Duration SESSION_TTL = Duration.ofSeconds(10);
  private static final long KEEPALIVE_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final Duration ACQUIRE_WAIT = Duration.ofMillis(200);

  /** After an unanswered call, a client waits this long (or until stopped) before the next try. */
  private static final long RETRY_PAUSE_MILLIS = 20;

  /**
   * One acquire from first invocation to the backend's answer, retries included.
   *
   * @param invokedNanos {@link System#nanoTime()} before the first attempt
   * @param answeredNanos after the answering attempt returned
   * @param attempts how many calls it took
   */
  record Answer(long invokedNanos, long answeredNanos, int attempts) {
    long nanos() {
      return answeredNanos - invokedNanos;
    }
  }

  private final LockBackend backend;
  private final List<LockKey> keys;
  private final int threads;
  private final GrantHistory history = new GrantHistory();
  private final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
  private final AtomicLong unavailable = new AtomicLong();
  private final AtomicLong held = new AtomicLong();
  private final CountDownLatch stop = new CountDownLatch(1);
  private final List<Thread> workers = new ArrayList<>();

  EtcdLockWorkload(LockBackend backend, int threads, int keyCount) {
    this.backend = backend;
    this.threads = threads;
    String run = UUID.randomUUID().toString().substring(0, 8);
    List<LockKey> list = new ArrayList<>();
    for (int i = 0; i < keyCount; i++) {
      list.add(LockKey.of("payout:load-" + run + "-" + i));
    }
    this.keys = List.copyOf(list);
  }

  void start() {
    for (int i = 0; i < threads; i++) {
      String client = "client-" + i;
      Thread worker = new Thread(() -> run(client), "etcd-workload-" + i);
      worker.setDaemon(true);
      workers.add(worker);
      worker.start();
    }
  }

  /** Signals every client to stop and waits for them to finish their current grant. */
  void stopAndJoin(Duration timeout) throws InterruptedException {
    stop.countDown();
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Thread worker : workers) {
      worker.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      if (worker.isAlive()) {
        violations.add(worker.getName() + " did not stop within " + timeout);
      }
    }
  }

  GrantHistory history() {
    return history;
  }

  List<Answer> answers() {
    return List.copyOf(answers);
  }

  List<String> violations() {
    return List.copyOf(violations);
  }

  long unavailableCalls() {
    return unavailable.get();
  }

  long heldAnswers() {
    return held.get();
  }

  private boolean stopped() {
    return stop.getCount() == 0;
  }

  /** Waits a little before retrying an unanswered call, or less if the workload is stopped. */
  private void pauseBeforeRetry() {
    try {
      stop.await(RETRY_PAUSE_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void run(String client) {
    SessionId session = newSession(client);
    long lastKeepAlive = System.nanoTime();
    while (!stopped() && session != null) {
      LockKey key = keys.get(ThreadLocalRandom.current().nextInt(keys.size()));
      long invoked = System.nanoTime();
      int attempts = 0;
      LockGrant grant = null;
      boolean answered = false;
      while (!answered && !stopped()) {
        attempts++;
        try {
          grant = backend.acquire(key, session, ACQUIRE_WAIT);
          answered = true;
        } catch (LockNotAcquiredException e) {
          held.incrementAndGet();
          answered = true;
        } catch (BackendUnavailableException e) {
          unavailable.incrementAndGet();
          pauseBeforeRetry();
        } catch (SessionNotFoundException e) {
          violations.add(client + " lost its session while acquiring " + key + ": " + e);
          return;
        }
      }
      long completed = System.nanoTime();
      if (answered) {
        answers.add(new Answer(invoked, completed, attempts));
      }
      if (grant != null) {
        long releaseInvoked = System.nanoTime();
        release(client, key, session, grant);
        history.record(
            new GrantHistory.Grant(
                key.value(), grant.token().value(), client, invoked, completed, releaseInvoked));
      }
      if (System.nanoTime() - lastKeepAlive > KEEPALIVE_EVERY_NANOS) {
        try {
          backend.keepAlive(session);
          lastKeepAlive = System.nanoTime();
        } catch (BackendUnavailableException e) {
          unavailable.incrementAndGet();
        } catch (SessionNotFoundException e) {
          violations.add(client + " lost its session: " + e);
          return;
        }
      }
    }
    closeQuietly(session);
  }

  private void release(String client, LockKey key, SessionId session, LockGrant grant) {
    for (int attempt = 1; ; attempt++) {
      try {
        backend.release(key, session, grant.token());
        return;
      } catch (BackendUnavailableException e) {
        unavailable.incrementAndGet();
        pauseBeforeRetry();
      } catch (NotHolderException e) {
        if (attempt == 1) {
          // The session is alive and nobody revokes: only this client could have ended the grant.
          violations.add(client + " was not the holder of its own grant " + grant);
        }
        return;
      } catch (LockLostException e) {
        violations.add(client + " lost " + grant + ": " + e);
        return;
      }
    }
  }

  private SessionId newSession(String client) {
    while (!stopped()) {
      try {
        return backend.createSession(client, SESSION_TTL).sessionId();
      } catch (BackendUnavailableException e) {
        unavailable.incrementAndGet();
        pauseBeforeRetry();
      }
    }
    return null;
  }

  private void closeQuietly(SessionId session) {
    try {
      backend.closeSession(session);
    } catch (RuntimeException e) {
      // The session expires by itself after its TTL; nothing depends on closing it now.
    }
  }

  /**
   * What a fault cost the clients, measured from the fault to the next fault (or the end).
   *
   * @param longestAcquireNanos the longest any one acquire waited for an answer, retries included,
   *     among acquires answered in the window
   * @param longestGapNanos the longest stretch in the window during which no client got any answer
   *     to an acquire, counted from the fault itself
   * @param answered how many acquires were answered in the window
   */
  record Window(long longestAcquireNanos, long longestGapNanos, int answered) {
    String describe() {
      return String.format(
          Locale.ROOT,
          "longest acquire wait %.3f s, longest gap without any answered acquire %.3f s,"
              + " %d acquires answered",
          longestAcquireNanos / 1e9,
          longestGapNanos / 1e9,
          answered);
    }
  }

  /** The unavailability clients saw between {@code fromNanos} (a fault) and {@code toNanos}. */
  Window window(long fromNanos, long toNanos) {
    List<Answer> inWindow =
        answers.stream()
            .filter(a -> a.answeredNanos() >= fromNanos && a.answeredNanos() < toNanos)
            .toList();
    long longest = inWindow.stream().mapToLong(Answer::nanos).max().orElse(0);
    long[] times = inWindow.stream().mapToLong(Answer::answeredNanos).sorted().toArray();
    long gap = times.length == 0 ? toNanos - fromNanos : times[0] - fromNanos;
    for (int i = 1; i < times.length; i++) {
      gap = Math.max(gap, times[i] - times[i - 1]);
    }
    return new Window(longest, gap, times.length);
  }

  @Override
  public String toString() {
    long[] latencies = answers.stream().mapToLong(Answer::nanos).sorted().toArray();
    long p50 = latencies.length == 0 ? 0 : latencies[latencies.length / 2];
    return String.format(
        Locale.ROOT,
        "%d threads on %d keys: %d grants, %d acquires answered (%d held by another),"
            + " %d unanswered calls retried, median acquire %.1f ms, keys %s",
        threads,
        keys.size(),
        history.size(),
        latencies.length,
        held.get(),
        unavailable.get(),
        p50 / 1e6,
        Arrays.toString(keys.stream().map(LockKey::value).toArray()));
  }
}
