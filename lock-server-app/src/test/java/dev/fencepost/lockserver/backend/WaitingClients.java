package dev.fencepost.lockserver.backend;

import static org.awaitility.Awaitility.await;

import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.SessionId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.function.LongSupplier;

/**
 * Clients that wait for a key through one backend instance, each with a session of its own, for the
 * waiting-acquire tests of both backends (ADRs 0208, 0212 and 0214). A backend tells two things
 * apart that the tests settle on: how many frees it has heard from its store ({@code heard}: NOTIFY
 * or watch events) and how many waiters of a key sleep ({@link WaitQueues#asleep}); with every
 * waiter asleep and every free heard, nothing is in flight.
 */
public final class WaitingClients {

  /** One waiting acquire: its index in the order it was started, its session, its outcome. */
  public record Waiter(int index, SessionId session, CompletableFuture<LockGrant> grant) {}

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Duration SETTLE = Duration.ofSeconds(20);

  private final LockBackend backend;
  private final WaitQueues queues;
  private final LongSupplier heard;
  private final ExecutorService pool;

  public WaitingClients(
      LockBackend backend, WaitQueues queues, LongSupplier heard, ExecutorService pool) {
    this.backend = backend;
    this.queues = queues;
    this.heard = heard;
    this.pool = pool;
  }

  /** Starts {@code n} waiters of {@code key}, indexes 0 to n-1, and returns once all are asleep. */
  public List<Waiter> startAll(LockKey key, int n) {
    List<Waiter> waiters = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      waiters.add(start(key, i));
    }
    await().atMost(SETTLE).until(() -> asleep(key) == n);
    return waiters;
  }

  /** Starts one waiter of {@code key}, waiting up to 30 s, without waiting for it to sleep. */
  public Waiter start(LockKey key, int index) {
    SessionId session =
        backend.createSession("waiter-" + index, Duration.ofSeconds(60)).sessionId();
    return new Waiter(
        index,
        session,
        CompletableFuture.supplyAsync(() -> backend.acquire(key, session, WAIT), pool));
  }

  /**
   * Releases each grant as it comes until every waiter has had the key, each release settled (its
   * free heard, the next grant made, the rest asleep) before the next; returns the waiters' indexes
   * in the order of their grants. The first release was made by the caller, after it read {@code
   * heardBefore}.
   */
  public List<Integer> handOffToEveryone(LockKey key, List<Waiter> waiters, long heardBefore)
      throws Exception {
    List<Integer> order = new ArrayList<>();
    while (order.size() < waiters.size()) {
      awaitSettled(key, waiters, order.size() + 1, heardBefore);
      Waiter next =
          granted(waiters).stream().filter(w -> !order.contains(w.index())).findFirst().get();
      order.add(next.index());
      LockGrant grant = next.grant().get();
      backend.release(key, next.session(), grant.token());
    }
    return order;
  }

  /**
   * Waits until {@code grants} of the waiters have had the key, as many frees have been heard since
   * {@code heardBefore}, and every other waiter is asleep: nothing is in flight.
   */
  public void awaitSettled(LockKey key, List<Waiter> waiters, int grants, long heardBefore) {
    await()
        .atMost(SETTLE)
        .until(
            () ->
                granted(waiters).size() == grants
                    && heard.getAsLong() >= heardBefore + grants
                    && asleep(key) == waiters.size() - grants);
  }

  /** The waiters whose acquire has returned. */
  public static List<Waiter> granted(List<Waiter> waiters) {
    return waiters.stream().filter(w -> w.grant().isDone()).toList();
  }

  /** Waiters of {@code key} asleep on this backend instance. */
  public int asleep(LockKey key) {
    return queues.asleep(key.value());
  }
}
