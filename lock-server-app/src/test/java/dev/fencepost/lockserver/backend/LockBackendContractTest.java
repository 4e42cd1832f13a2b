package dev.fencepost.lockserver.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockInfo;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.LockNotAcquiredException;
import dev.fencepost.lock.NotHolderException;
import dev.fencepost.lock.RevokeResult;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lock.SessionInfo;
import dev.fencepost.lock.SessionNotFoundException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The lock contract, one test per row of the lock and session lifecycle tables
 * (docs/lock-server.md, FR-01..FR-08). Every backend subclasses this suite unchanged and supplies
 * {@link #backend()}; a backend that fails a test here is wrong, whatever its own tests say.
 */
public abstract class LockBackendContractTest {

  private static final AtomicInteger KEYS = new AtomicInteger();
  private static final Duration LONG_TTL = Duration.ofSeconds(60);

  /** The backend under test; the same instance for the whole class. */
  protected abstract LockBackend backend();

  /**
   * A TTL short enough to watch expire, long enough for the backend to honour. etcd rounds leases
   * to whole seconds and has a minimum; 2 s suits both backends.
   */
  protected Duration shortTtl() {
    return Duration.ofSeconds(2);
  }

  protected static LockKey freshKey() {
    return LockKey.of("contract:" + KEYS.incrementAndGet() + ":" + UUID.randomUUID());
  }

  protected SessionId session(String owner) {
    return backend().createSession(owner, LONG_TTL).sessionId();
  }

  /**
   * A key held by a session: the key and session the holder asked with, and the grant it got. A
   * holder renews and releases with what it asked with and the token it was given.
   */
  protected record Held(LockKey key, SessionId session, LockGrant grant) {
    FencingToken token() {
      return grant.token();
    }
  }

  /** A fresh key, acquired by a new long-lived session of {@code owner}. */
  protected Held holdFreshKey(String owner) {
    return holdFreshKey(session(owner));
  }

  /** A fresh key, acquired by {@code session}. */
  protected Held holdFreshKey(SessionId session) {
    LockKey key = freshKey();
    return new Held(key, session, backend().acquire(key, session, Duration.ZERO));
  }

  protected LockGrant renew(Held held) {
    return backend().renew(held.key(), held.session(), held.token());
  }

  protected void release(Held held) {
    backend().release(held.key(), held.session(), held.token());
  }

  // --- Lock lifecycle ---------------------------------------------------------------------

  @Test
  @Tag("FR-02")
  @Tag("FR-03")
  void aFreeKeyIsGrantedWithAPositiveTokenAndAServerExpiry() {
    SessionId s = session("alice");
    LockKey key = freshKey();

    LockGrant grant = backend().acquire(key, s, Duration.ZERO);

    assertThat(grant.key()).isEqualTo(key);
    assertThat(grant.owner()).isEqualTo("alice");
    assertThat(grant.sessionId()).isEqualTo(s);
    assertThat(grant.token().value()).isPositive();
    assertThat(grant.expiresAt()).isAfter(grant.acquiredAt());
  }

  @Test
  @Tag("FR-02")
  void theHoldingSessionAcquiringAgainGetsTheSameTokenNotANewOne() {
    Held first = holdFreshKey("alice");

    LockGrant again = backend().acquire(first.key(), first.session(), Duration.ZERO);

    assertThat(again.token()).isEqualTo(first.token());
    // ...and no token was minted by the retry: the next grant is the next token ever issued.
    backend().release(first.key(), first.session(), again.token());
    LockGrant next = backend().acquire(first.key(), session("bob"), Duration.ZERO);
    assertThat(next.token()).isGreaterThan(first.token());
  }

  @Test
  @Tag("FR-01")
  @Tag("INV-06")
  void anotherSessionIsRefusedWhileTheKeyIsHeld() {
    Held held = holdFreshKey("alice");

    assertThatThrownBy(() -> backend().acquire(held.key(), session("bob"), Duration.ZERO))
        .isInstanceOf(LockNotAcquiredException.class);

    LockInfo info = backend().inspect(held.key());
    assertThat(info.held()).isTrue();
    assertThat(info.token()).isEqualTo(held.token());
    assertThat(info.owner()).isEqualTo("alice");
  }

  @Test
  @Tag("FR-06")
  void renewExtendsTheLeaseAndKeepsTheToken() {
    Held held = holdFreshKey(backend().createSession("alice", shortTtl()).sessionId());

    LockGrant renewed = renew(held);

    assertThat(renewed.token()).isEqualTo(held.token());
    assertThat(renewed.expiresAt()).isAfterOrEqualTo(held.grant().expiresAt());
  }

  @Test
  @Tag("FR-06")
  void renewOfAGrantThatIsNoLongerValidFailsExplicitly() {
    Held held = holdFreshKey("alice");
    release(held);

    assertThatThrownBy(() -> renew(held)).isInstanceOf(LockLostException.class);
  }

  @Test
  @Tag("FR-06")
  void renewWithAnotherTokenThanTheHeldOneFails() {
    Held held = holdFreshKey("alice");
    FencingToken another = FencingToken.of(held.token().value() + 1_000_000);

    assertThatThrownBy(() -> backend().renew(held.key(), held.session(), another))
        .isInstanceOf(LockLostException.class);
    assertThat(backend().inspect(held.key()).token()).isEqualTo(held.token());
  }

  @Test
  @Tag("FR-05")
  void releaseIsACompareAndDeleteOnTheHoldersOwnGrant() {
    Held alice = holdFreshKey("alice");
    SessionId bob = session("bob");
    FencingToken another = FencingToken.of(alice.token().value() + 1);

    assertThatThrownBy(() -> backend().release(alice.key(), bob, alice.token()))
        .isInstanceOf(NotHolderException.class);
    assertThatThrownBy(() -> backend().release(alice.key(), alice.session(), another))
        .isInstanceOf(NotHolderException.class);
    assertThat(backend().inspect(alice.key()).held()).isTrue();

    release(alice);

    assertThat(backend().inspect(alice.key()).held()).isFalse();
    assertThatThrownBy(() -> release(alice)).isInstanceOf(NotHolderException.class);
  }

  @Test
  @Tag("FR-02")
  void aReleasedKeyIsGrantedAgainWithAStrictlyHigherToken() {
    Held first = holdFreshKey("alice");
    release(first);

    LockGrant second = backend().acquire(first.key(), session("bob"), Duration.ZERO);

    assertThat(second.token()).isGreaterThan(first.token());
  }

  @Test
  @Tag("FR-03")
  void anUnrenewedLeaseExpiresAndAnotherSessionTakesOverWithAHigherToken() {
    Held old = holdFreshKey(backend().createSession("sleeper", shortTtl()).sessionId());
    SessionId bob = session("bob");

    LockGrant taken =
        await()
            .atMost(shortTtl().multipliedBy(3).plusSeconds(5))
            .pollInterval(Duration.ofMillis(100))
            .ignoreException(LockNotAcquiredException.class)
            .until(() -> backend().acquire(old.key(), bob, Duration.ZERO), g -> g != null);

    assertThat(taken.token()).isGreaterThan(old.token());
    assertThatThrownBy(() -> renew(old)).isInstanceOf(LockLostException.class);
  }

  @Test
  @Tag("FR-04")
  void closingASessionReleasesEveryLockOfItInOneAction() {
    SessionId s = session("alice");
    Held first = holdFreshKey(s);
    Held second = holdFreshKey(s);

    backend().closeSession(s);

    assertThat(backend().inspect(first.key()).held()).isFalse();
    assertThat(backend().inspect(second.key()).held()).isFalse();
    SessionId bob = session("bob");
    backend().acquire(first.key(), bob, Duration.ZERO);
    backend().acquire(second.key(), bob, Duration.ZERO);
  }

  @Test
  @Tag("FR-04")
  void sessionExpiryReleasesEveryLockOfIt() {
    SessionId s = backend().createSession("alice", shortTtl()).sessionId();
    LockKey first = holdFreshKey(s).key();
    LockKey second = holdFreshKey(s).key();

    await()
        .atMost(shortTtl().multipliedBy(3).plusSeconds(5))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> !backend().inspect(first).held() && !backend().inspect(second).held());
    assertThatThrownBy(() -> backend().keepAlive(s)).isInstanceOf(SessionNotFoundException.class);
  }

  @Test
  @Tag("FR-08")
  @Tag("UC-06")
  @Tag("INV-04")
  void forceRevokeFreesTheKeyFencesTheOldHolderAndTheNextTokenIsHigher() {
    Held alice = holdFreshKey("alice");

    RevokeResult result =
        backend().revoke(alice.key(), "oncall-jane", "holder unreachable, INC-42");

    assertThat(result.revokedToken()).isEqualTo(alice.token());
    assertThat(result.revokedOwner()).isEqualTo("alice");
    assertThat(backend().inspect(alice.key()).held()).isFalse();
    assertThatThrownBy(() -> renew(alice))
        .isInstanceOf(LockLostException.class)
        .extracting(e -> ((LockLostException) e).reason())
        .isEqualTo(LockLostException.Reason.REVOKED);
    assertThatThrownBy(() -> release(alice)).isInstanceOf(NotHolderException.class);
    LockGrant next = backend().acquire(alice.key(), session("bob"), Duration.ZERO);
    assertThat(next.token()).isGreaterThan(alice.token());
  }

  @Test
  @Tag("FR-08")
  void revokingAFreeKeyIsAuditedAndReportsNoHolder() {
    RevokeResult result = backend().revoke(freshKey(), "oncall-jane", "drill");
    assertThat(result.revokedToken()).isNull();
    assertThat(result.revokedOwner()).isNull();
  }

  @Test
  void aWaitingAcquireIsGrantedAsSoonAsTheHolderReleases() throws Exception {
    Held alice = holdFreshKey("alice");
    LockKey key = alice.key();
    SessionId bob = session("bob");

    CompletableFuture<LockGrant> waiting =
        CompletableFuture.supplyAsync(() -> backend().acquire(key, bob, Duration.ofSeconds(20)));
    await().atMost(Duration.ofSeconds(10)).until(() -> backend().inspect(key).waiters() == 1);
    release(alice);

    LockGrant granted = waiting.get(15, TimeUnit.SECONDS);
    assertThat(granted.sessionId()).isEqualTo(bob);
    assertThat(granted.token()).isGreaterThan(alice.token());
    assertThat(backend().inspect(key).waiters()).isZero();
  }

  /**
   * The first two waiters' sessions close while they wait, so the release wakes waiters that can no
   * longer take the key. The third waiter gets it at once, not when the old holder's 60-s session
   * would have expired or its own wait ends. Two of them, because a release reaches the waiters
   * twice (its own wake and the NOTIFY or watch event that follows), and the second alone would
   * reach the next waiter when one had failed.
   */
  @Test
  void aFreedKeyWhoseFirstWaitersLostTheirSessionsGoesToTheNextWaiter() throws Exception {
    Held alice = holdFreshKey("alice");
    LockKey key = alice.key();
    List<SessionId> gone = List.of(session("bob"), session("dave"));
    SessionId carol = session("carol");
    // A thread per waiter: the common pool may have one thread on a small machine.
    ExecutorService threads = Executors.newFixedThreadPool(3);
    try {
      List<CompletableFuture<LockGrant>> goneWaits = new ArrayList<>();
      for (SessionId waiter : gone) {
        goneWaits.add(waitFor(key, waiter, threads));
        int queued = goneWaits.size();
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> backend().inspect(key).waiters() == queued);
      }
      CompletableFuture<LockGrant> carolWaits = waitFor(key, carol, threads);
      await().atMost(Duration.ofSeconds(10)).until(() -> backend().inspect(key).waiters() == 3);

      gone.forEach(backend()::closeSession); // they hold nothing: this frees no key, wakes nobody
      release(alice);

      for (CompletableFuture<LockGrant> wait : goneWaits) {
        assertThatThrownBy(() -> wait.get(15, TimeUnit.SECONDS))
            .hasCauseInstanceOf(SessionNotFoundException.class);
      }
      LockGrant granted = carolWaits.get(15, TimeUnit.SECONDS);
      assertThat(granted.sessionId()).isEqualTo(carol);
      assertThat(granted.token()).isGreaterThan(alice.token());
    } finally {
      threads.shutdownNow();
    }
  }

  private CompletableFuture<LockGrant> waitFor(
      LockKey key, SessionId session, ExecutorService threads) {
    return CompletableFuture.supplyAsync(
        () -> backend().acquire(key, session, Duration.ofSeconds(60)), threads);
  }

  @Test
  void aWaitingAcquireGivesUpAtItsDeadline() {
    LockKey key = holdFreshKey("alice").key();
    SessionId bob = session("bob");

    assertThatThrownBy(() -> backend().acquire(key, bob, Duration.ofMillis(300)))
        .isInstanceOf(LockNotAcquiredException.class);
    assertThat(backend().inspect(key).waiters()).isZero();
  }

  @Test
  @Tag("FR-07")
  void inspectReportsHolderTokenTimesAndAFreeKeyAsFree() {
    LockKey key = freshKey();
    assertThat(backend().inspect(key).held()).isFalse();
    assertThat(backend().inspect(key).token()).isNull();

    SessionId s = session("alice");
    LockGrant grant = backend().acquire(key, s, Duration.ZERO);
    LockInfo info = backend().inspect(key);

    assertThat(info.held()).isTrue();
    assertThat(info.owner()).isEqualTo("alice");
    assertThat(info.sessionId()).isEqualTo(s);
    assertThat(info.token()).isEqualTo(grant.token());
    assertThat(info.acquiredAt()).isNotNull();
    assertThat(info.expiresAt()).isAfter(info.acquiredAt());
    assertThat(info.waiters()).isZero();
  }

  // --- Session lifecycle ------------------------------------------------------------------

  @Test
  void aNewSessionReportsItsOwnerTtlAndExpiry() {
    SessionInfo session = backend().createSession("alice", Duration.ofSeconds(10));
    assertThat(session.owner()).isEqualTo("alice");
    assertThat(session.ttl()).isEqualTo(Duration.ofSeconds(10));
    assertThat(session.expiresAt()).isNotNull();
  }

  @Test
  void aSessionKeepsThePrincipalThatCreatedItUntilItEnds() {
    SessionInfo owned = backend().createSession("alice", "svc-alice", Duration.ofSeconds(10));
    SessionInfo unowned = backend().createSession("bob", Duration.ofSeconds(10));

    assertThat(backend().sessionPrincipal(owned.sessionId())).hasValue("svc-alice");
    assertThat(backend().sessionPrincipal(unowned.sessionId())).isEmpty();
    backend().keepAlive(owned.sessionId());
    assertThat(backend().sessionPrincipal(owned.sessionId())).hasValue("svc-alice");

    backend().closeSession(owned.sessionId());
    assertThat(backend().sessionPrincipal(owned.sessionId())).isEmpty();
    assertThat(backend().sessionPrincipal(SessionId.of("no-such-session"))).isEmpty();
    assertThat(backend().sessionPrincipal(SessionId.of(UUID.randomUUID().toString()))).isEmpty();
  }

  @Test
  void anExpiredSessionHasNoPrincipal() {
    SessionId s = backend().createSession("alice", "svc-alice", shortTtl()).sessionId();
    assertThat(backend().sessionPrincipal(s)).hasValue("svc-alice");
    // The session's lock becoming free is the observable sign that the backend expired it.
    LockKey witness = holdFreshKey(s).key();
    await()
        .atMost(shortTtl().multipliedBy(3).plusSeconds(5))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> !backend().inspect(witness).held());
    assertThat(backend().sessionPrincipal(s)).isEmpty();
  }

  @Test
  void keepAliveExtendsALiveSession() {
    SessionInfo session = backend().createSession("alice", shortTtl());
    SessionInfo kept = backend().keepAlive(session.sessionId());
    assertThat(kept.sessionId()).isEqualTo(session.sessionId());
    assertThat(kept.expiresAt()).isAfterOrEqualTo(session.expiresAt());
  }

  @Test
  void aSessionKeptAliveOutlivesItsTtl() {
    SessionId s = backend().createSession("alice", shortTtl()).sessionId();
    Held held = holdFreshKey(s);
    long until = System.nanoTime() + shortTtl().multipliedBy(2).toNanos();

    await()
        .atMost(shortTtl().multipliedBy(4))
        .pollInterval(shortTtl().dividedBy(4))
        .until(
            () -> {
              backend().keepAlive(s);
              return System.nanoTime() > until;
            });

    assertThat(renew(held).token()).isEqualTo(held.token());
  }

  @Test
  void keepAliveOfAnUnknownOrExpiredSessionIsSessionNotFound() {
    assertThatThrownBy(() -> backend().keepAlive(SessionId.of(UUID.randomUUID().toString())))
        .isInstanceOf(SessionNotFoundException.class);
    assertThatThrownBy(() -> backend().keepAlive(SessionId.of("not-a-session")))
        .isInstanceOf(SessionNotFoundException.class);

    SessionId s = backend().createSession("alice", shortTtl()).sessionId();
    // The session's lock becoming free is the observable sign that the backend expired it.
    LockKey witness = holdFreshKey(s).key();
    await()
        .atMost(shortTtl().multipliedBy(3).plusSeconds(5))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> !backend().inspect(witness).held());
    assertThatThrownBy(() -> backend().keepAlive(s)).isInstanceOf(SessionNotFoundException.class);
  }

  @Test
  void acquiringWithAnUnknownOrClosedSessionIsSessionNotFound() {
    assertThatThrownBy(
            () ->
                backend()
                    .acquire(freshKey(), SessionId.of(UUID.randomUUID().toString()), Duration.ZERO))
        .isInstanceOf(SessionNotFoundException.class);
    SessionId s = session("alice");
    backend().closeSession(s);
    assertThatThrownBy(() -> backend().acquire(freshKey(), s, Duration.ZERO))
        .isInstanceOf(SessionNotFoundException.class);
  }

  @Test
  void closingAnUnknownSessionIsAHarmlessNoOp() {
    backend().closeSession(SessionId.of(UUID.randomUUID().toString()));
    backend().closeSession(SessionId.of("not-a-session"));
    SessionId s = session("alice");
    backend().closeSession(s);
    backend().closeSession(s);
  }

  @Test
  @Tag("FR-02")
  @Tag("INV-04")
  void tokensStrictlyIncreasePerKeyAcrossReleasesExpiriesAndRevokes() {
    LockKey key = freshKey();
    long last = 0;
    for (int round = 0; round < 5; round++) {
      SessionId s = session("round-" + round);
      LockGrant grant = backend().acquire(key, s, Duration.ZERO);
      assertThat(grant.token().value()).isGreaterThan(last);
      last = grant.token().value();
      if (round % 2 == 0) {
        backend().release(key, s, grant.token());
      } else {
        backend().revoke(key, "oncall", "round " + round);
      }
    }
  }
}
