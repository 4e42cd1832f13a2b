package dev.fencepost.lockserver.backend.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.launcher.etcd.EtcdMember;
import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lockserver.backend.WaitingClients;
import dev.fencepost.lockserver.backend.WaitingClients.Waiter;
import dev.fencepost.testsupport.etcd.EtcdClusterExtension;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Waiting acquires on etcd (ADR 0214): the waiters of a key on one lock server share one watch of
 * it; a delete wakes one waiter, not all of them; they get the key in the order they began to wait;
 * and a delete made elsewhere between a waiter's failed attempt and its sleep, or a watch that
 * breaks, does not leave the waiter asleep with the key free. A waiter's key under {@code waiters/}
 * is written and deleted inside its attempts' own transactions (ADR 0215). {@code other} is a
 * second lock server on the same etcd, whose releases reach this one only through the watch.
 */
class EtcdWaitingAcquiresTest {

  @RegisterExtension static EtcdClusterExtension etcd = EtcdClusterExtension.singleMember();

  private static final String PREFIX = "/waiting-test/";

  private static Client client;
  private static EtcdLockBackend backend;
  private static EtcdLockBackend other;

  private final ExecutorService pool = Executors.newCachedThreadPool();
  private WaitingClients clients;

  @BeforeEach
  void clients() {
    clients = new WaitingClients(backend, backend.waits().queues(), backend.waits()::heard, pool);
  }

  @BeforeAll
  static void start() {
    client = EtcdFailover.client(etcd.cluster());
    backend = EtcdFailover.backend(client, PREFIX);
    other = EtcdFailover.backend(client, PREFIX);
  }

  @AfterAll
  static void stop() {
    client.close();
  }

  @AfterEach
  void stopWaiters() {
    backend.afterFailedAttempt(() -> {});
    pool.shutdownNow();
  }

  @Test
  void theWaitersOfAKeyShareOneWatchThatClosesWhenTheLastLeaves() throws Exception {
    LockKey key = freshKey();
    SessionId holder = session("holder");
    LockGrant held = backend.acquire(key, holder, Duration.ZERO);
    long openedBefore = backend.waits().opened();

    List<Waiter> waiters = clients.startAll(key, 8);

    assertThat(backend.waits().opened() - openedBefore).isEqualTo(1);
    assertThat(backend.waits().openWatches()).isEqualTo(1);
    long heardBefore = backend.waits().heard();
    other.release(key, holder, held.token());
    clients.handOffToEveryone(key, waiters, heardBefore);
    await().atMost(Duration.ofSeconds(10)).until(() -> backend.waits().openWatches() == 0);
  }

  @Test
  void aDeleteWakesOneWaiterNotEveryWaiterOfTheKey() throws Exception {
    LockKey key = freshKey();
    SessionId holder = session("holder");
    LockGrant held = backend.acquire(key, holder, Duration.ZERO);
    List<Waiter> waiters = clients.startAll(key, 8);
    long attemptsBefore = backend.attempts();
    long heardBefore = backend.waits().heard();

    // Through the other lock server: the delete reaches this one only as a watch event.
    other.release(key, holder, held.token());

    // Settled: one waiter has the key, the delete has been heard, every other waiter is asleep.
    clients.awaitSettled(key, waiters, 1, heardBefore);
    // A watch per waiter made all 8 attempt.
    assertThat(backend.attempts() - attemptsBefore).isEqualTo(1);

    clients.handOffToEveryone(key, waiters, heardBefore);
  }

  @Test
  void waitersGetTheKeyInTheOrderTheyBeganToWait() throws Exception {
    LockKey key = freshKey();
    SessionId holder = session("holder");
    LockGrant held = backend.acquire(key, holder, Duration.ZERO);
    List<Waiter> waiters = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      waiters.add(clients.start(key, i));
      int expected = i + 1;
      await().atMost(Duration.ofSeconds(20)).until(() -> clients.asleep(key) == expected);
    }

    long heardBefore = backend.waits().heard();
    backend.release(key, holder, held.token());
    List<Integer> order = clients.handOffToEveryone(key, waiters, heardBefore);

    assertThat(order).containsExactly(0, 1, 2, 3, 4);
  }

  @Test
  void aDeleteElsewhereBetweenAFailedAttemptAndTheSleepIsNotMissed() throws Exception {
    LockKey key = freshKey();
    // The holder's lease outlives the waiter's deadline: a missed delete would leave the waiter
    // asleep until then, with the key free.
    SessionId holder = other.createSession("holder", Duration.ofSeconds(120)).sessionId();
    LockGrant held = other.acquire(key, holder, Duration.ZERO);
    AtomicBoolean released = new AtomicBoolean();
    backend.afterFailedAttempt(
        () -> {
          if (released.compareAndSet(false, true)) {
            // In the waiter's thread, after its attempt saw the key held and before it opens its
            // watch: only a watch from the revision after that attempt replays this delete.
            other.release(key, holder, held.token());
          }
        });

    Waiter waiter = clients.start(key, 0);

    LockGrant grant = waiter.grant().get(10, TimeUnit.SECONDS);
    assertThat(grant.token()).isGreaterThan(held.token());
  }

  @Test
  void aBrokenWatchWakesItsWaitersToAttemptAgainAndWatchAnew() throws Exception {
    LockKey key = freshKey();
    SessionId holder = other.createSession("holder", Duration.ofSeconds(120)).sessionId();
    LockGrant held = other.acquire(key, holder, Duration.ZERO);
    long breaksBefore = backend.waits().breaks();
    AtomicBoolean compacted = new AtomicBoolean();
    backend.afterFailedAttempt(
        () -> {
          if (compacted.compareAndSet(false, true)) {
            // etcd forgets the revisions the waiter's watch would start from: the watch fails.
            long revision = 0;
            for (int i = 0; i < 2; i++) {
              revision = put(PREFIX + "filler/" + i);
            }
            client.getKVClient().compact(revision).join();
          }
        });

    Waiter waiter = clients.start(key, 0);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> backend.waits().breaks() > breaksBefore && clients.asleep(key) == 1);
    other.release(key, holder, held.token());

    LockGrant grant = waiter.grant().get(10, TimeUnit.SECONDS);
    assertThat(grant.token()).isGreaterThan(held.token());
  }

  @Test
  void aWaiterIsCountedFromTheAttemptThatFoundTheKeyHeld() throws Exception {
    LockKey key = freshKey();
    SessionId holder = session("holder");
    LockGrant held = backend.acquire(key, holder, Duration.ZERO);
    AtomicInteger countedAfterFirstFailure = new AtomicInteger(-1);
    backend.afterFailedAttempt(
        () -> countedAfterFirstFailure.compareAndSet(-1, backend.inspect(key).waiters()));

    Waiter waiter = clients.start(key, 0);
    await().atMost(Duration.ofSeconds(20)).until(() -> clients.asleep(key) == 1);

    // The failed attempt's own transaction wrote the waiter key: counted before the waiter sleeps.
    assertThat(countedAfterFirstFailure).hasValue(1);
    backend.release(key, holder, held.token());
    waiter.grant().get(10, TimeUnit.SECONDS);
    // ... and the granting transaction deleted it.
    assertThat(backend.inspect(key).waiters()).isZero();
  }

  @Test
  void aHandOffTakesThreeTransactionsAndNoSeparateWaiterWrite() throws Exception {
    LockKey key = freshKey();
    SessionId holder = other.createSession("holder", Duration.ofSeconds(60)).sessionId();
    LockGrant held = other.acquire(key, holder, Duration.ZERO);
    SessionId next = session("next");
    EtcdMember member = etcd.cluster().member(0);
    long txns = EtcdServed.calls(member, "Txn");
    long puts = EtcdServed.calls(member, "Put");
    long deletes = EtcdServed.calls(member, "DeleteRange");

    CompletableFuture<LockGrant> grant =
        CompletableFuture.supplyAsync(
            () -> backend.acquire(key, next, Duration.ofSeconds(30)), pool);
    await().atMost(Duration.ofSeconds(20)).until(() -> clients.asleep(key) == 1);
    other.release(key, holder, held.token());
    assertThat(grant.get(10, TimeUnit.SECONDS).token()).isGreaterThan(held.token());

    // The waiter's failed attempt (which wrote its waiter key), the release, and the grant (which
    // deleted it): each a raft entry of its own. A waiter key written and deleted by calls of
    // their own would be two entries more.
    await().atMost(Duration.ofSeconds(10)).until(() -> EtcdServed.calls(member, "Txn") - txns >= 3);
    assertThat(EtcdServed.calls(member, "Txn") - txns).isEqualTo(3);
    assertThat(EtcdServed.calls(member, "Put") - puts).isZero();
    assertThat(EtcdServed.calls(member, "DeleteRange") - deletes).isZero();
  }

  @Test
  void aWaitingAcquireByTheHolderGetsItsOwnGrantAndLeavesNoWaiterKey() {
    LockKey key = freshKey();
    SessionId holder = session("holder");
    LockGrant held = backend.acquire(key, holder, Duration.ZERO);

    // Its attempt finds its own lease on the key in the reading branch, which also stored the
    // waiter key; the acquire's end must remove it.
    LockGrant again = backend.acquire(key, holder, Duration.ofSeconds(5));

    assertThat(again.token()).isEqualTo(held.token());
    assertThat(backend.inspect(key).waiters()).isZero();
  }

  private static long put(String key) {
    return client
        .getKVClient()
        .put(
            ByteSequence.from(key, StandardCharsets.UTF_8),
            ByteSequence.from("x", StandardCharsets.UTF_8))
        .join()
        .getHeader()
        .getRevision();
  }

  private static LockKey freshKey() {
    return LockKey.of("wait-" + UUID.randomUUID());
  }

  private static SessionId session(String owner) {
    return backend.createSession(owner, Duration.ofSeconds(60)).sessionId();
  }
}
