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
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
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
    SessionId s = session("alice");
    LockKey key = freshKey();
    LockGrant first = backend().acquire(key, s, Duration.ZERO);

    LockGrant again = backend().acquire(key, s, Duration.ZERO);

    assertThat(again.token()).isEqualTo(first.token());
    // ...and no token was minted by the retry: the next grant is the next token ever issued.
    backend().release(key, s, again.token());
    LockGrant next = backend().acquire(key, session("bob"), Duration.ZERO);
    assertThat(next.token()).isGreaterThan(first.token());
  }

  @Test
  @Tag("FR-01")
  @Tag("INV-06")
  void anotherSessionIsRefusedWhileTheKeyIsHeld() {
    LockKey key = freshKey();
    LockGrant held = backend().acquire(key, session("alice"), Duration.ZERO);

    assertThatThrownBy(() -> backend().acquire(key, session("bob"), Duration.ZERO))
        .isInstanceOf(LockNotAcquiredException.class);

    LockInfo info = backend().inspect(key);
    assertThat(info.held()).isTrue();
    assertThat(info.token()).isEqualTo(held.token());
    assertThat(info.owner()).isEqualTo("alice");
  }

  @Test
  @Tag("FR-06")
  void renewExtendsTheLeaseAndKeepsTheToken() {
    SessionId s = backend().createSession("alice", shortTtl()).sessionId();
    LockKey key = freshKey();
    LockGrant grant = backend().acquire(key, s, Duration.ZERO);

    LockGrant renewed = backend().renew(key, s, grant.token());

    assertThat(renewed.token()).isEqualTo(grant.token());
    assertThat(renewed.expiresAt()).isAfterOrEqualTo(grant.expiresAt());
  }

  @Test
  @Tag("FR-06")
  void renewOfAGrantThatIsNoLongerValidFailsExplicitly() {
    SessionId s = session("alice");
    LockKey key = freshKey();
    LockGrant grant = backend().acquire(key, s, Duration.ZERO);
    backend().release(key, s, grant.token());

    assertThatThrownBy(() -> backend().renew(key, s, grant.token()))
        .isInstanceOf(LockLostException.class);
  }

  @Test
  @Tag("FR-06")
  void renewWithAnotherTokenThanTheHeldOneFails() {
    SessionId s = session("alice");
    LockKey key = freshKey();
    LockGrant grant = backend().acquire(key, s, Duration.ZERO);

    assertThatThrownBy(
            () -> backend().renew(key, s, FencingToken.of(grant.token().value() + 1_000_000)))
        .isInstanceOf(LockLostException.class);
    assertThat(backend().inspect(key).token()).isEqualTo(grant.token());
  }

  @Test
  @Tag("FR-05")
  void releaseIsACompareAndDeleteOnTheHoldersOwnGrant() {
    SessionId alice = session("alice");
    SessionId bob = session("bob");
    LockKey key = freshKey();
    LockGrant grant = backend().acquire(key, alice, Duration.ZERO);

    assertThatThrownBy(() -> backend().release(key, bob, grant.token()))
        .isInstanceOf(NotHolderException.class);
    assertThatThrownBy(
            () -> backend().release(key, alice, FencingToken.of(grant.token().value() + 1)))
        .isInstanceOf(NotHolderException.class);
    assertThat(backend().inspect(key).held()).isTrue();

    backend().release(key, alice, grant.token());

    assertThat(backend().inspect(key).held()).isFalse();
    assertThatThrownBy(() -> backend().release(key, alice, grant.token()))
        .isInstanceOf(NotHolderException.class);
  }

  @Test
  @Tag("FR-02")
  void aReleasedKeyIsGrantedAgainWithAStrictlyHigherToken() {
    LockKey key = freshKey();
    SessionId alice = session("alice");
    LockGrant first = backend().acquire(key, alice, Duration.ZERO);
    backend().release(key, alice, first.token());

    LockGrant second = backend().acquire(key, session("bob"), Duration.ZERO);

    assertThat(second.token()).isGreaterThan(first.token());
  }

  @Test
  @Tag("FR-03")
  void anUnrenewedLeaseExpiresAndAnotherSessionTakesOverWithAHigherToken() {
    LockKey key = freshKey();
    SessionId shortLived = backend().createSession("sleeper", shortTtl()).sessionId();
    LockGrant old = backend().acquire(key, shortLived, Duration.ZERO);
    SessionId bob = session("bob");

    LockGrant taken =
        await()
            .atMost(shortTtl().multipliedBy(3).plusSeconds(5))
            .pollInterval(Duration.ofMillis(100))
            .ignoreException(LockNotAcquiredException.class)
            .until(() -> backend().acquire(key, bob, Duration.ZERO), g -> g != null);

    assertThat(taken.token()).isGreaterThan(old.token());
    assertThatThrownBy(() -> backend().renew(key, shortLived, old.token()))
        .isInstanceOf(LockLostException.class);
  }

  @Test
  @Tag("FR-04")
  void closingASessionReleasesEveryLockOfItInOneAction() {
    SessionId s = session("alice");
    LockKey k1 = freshKey();
    LockKey k2 = freshKey();
    backend().acquire(k1, s, Duration.ZERO);
    backend().acquire(k2, s, Duration.ZERO);

    backend().closeSession(s);

    assertThat(backend().inspect(k1).held()).isFalse();
    assertThat(backend().inspect(k2).held()).isFalse();
    SessionId bob = session("bob");
    backend().acquire(k1, bob, Duration.ZERO);
    backend().acquire(k2, bob, Duration.ZERO);
  }

  @Test
  @Tag("FR-04")
  void sessionExpiryReleasesEveryLockOfIt() {
    SessionId s = backend().createSession("alice", shortTtl()).sessionId();
    LockKey k1 = freshKey();
    LockKey k2 = freshKey();
    backend().acquire(k1, s, Duration.ZERO);
    backend().acquire(k2, s, Duration.ZERO);

    await()
        .atMost(shortTtl().multipliedBy(3).plusSeconds(5))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> !backend().inspect(k1).held() && !backend().inspect(k2).held());
    assertThatThrownBy(() -> backend().keepAlive(s)).isInstanceOf(SessionNotFoundException.class);
  }

  @Test
  @Tag("FR-08")
  @Tag("UC-06")
  @Tag("INV-04")
  void forceRevokeFreesTheKeyFencesTheOldHolderAndTheNextTokenIsHigher() {
    SessionId alice = session("alice");
    LockKey key = freshKey();
    LockGrant grant = backend().acquire(key, alice, Duration.ZERO);

    RevokeResult result = backend().revoke(key, "oncall-jane", "holder unreachable, INC-42");

    assertThat(result.revokedToken()).isEqualTo(grant.token());
    assertThat(result.revokedOwner()).isEqualTo("alice");
    assertThat(backend().inspect(key).held()).isFalse();
    assertThatThrownBy(() -> backend().renew(key, alice, grant.token()))
        .isInstanceOf(LockLostException.class)
        .extracting(e -> ((LockLostException) e).reason())
        .isEqualTo(LockLostException.Reason.REVOKED);
    assertThatThrownBy(() -> backend().release(key, alice, grant.token()))
        .isInstanceOf(NotHolderException.class);
    LockGrant next = backend().acquire(key, session("bob"), Duration.ZERO);
    assertThat(next.token()).isGreaterThan(grant.token());
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
    LockKey key = freshKey();
    SessionId alice = session("alice");
    SessionId bob = session("bob");
    LockGrant held = backend().acquire(key, alice, Duration.ZERO);

    CompletableFuture<LockGrant> waiting =
        CompletableFuture.supplyAsync(() -> backend().acquire(key, bob, Duration.ofSeconds(20)));
    await().atMost(Duration.ofSeconds(10)).until(() -> backend().inspect(key).waiters() == 1);
    backend().release(key, alice, held.token());

    LockGrant granted = waiting.get(15, TimeUnit.SECONDS);
    assertThat(granted.sessionId()).isEqualTo(bob);
    assertThat(granted.token()).isGreaterThan(held.token());
    assertThat(backend().inspect(key).waiters()).isZero();
  }

  @Test
  void aWaitingAcquireGivesUpAtItsDeadline() {
    LockKey key = freshKey();
    backend().acquire(key, session("alice"), Duration.ZERO);
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
  void keepAliveExtendsALiveSession() {
    SessionInfo session = backend().createSession("alice", shortTtl());
    SessionInfo kept = backend().keepAlive(session.sessionId());
    assertThat(kept.sessionId()).isEqualTo(session.sessionId());
    assertThat(kept.expiresAt()).isAfterOrEqualTo(session.expiresAt());
  }

  @Test
  void aSessionKeptAliveOutlivesItsTtl() {
    SessionId s = backend().createSession("alice", shortTtl()).sessionId();
    LockKey key = freshKey();
    LockGrant grant = backend().acquire(key, s, Duration.ZERO);
    long until = System.nanoTime() + shortTtl().multipliedBy(2).toNanos();

    await()
        .atMost(shortTtl().multipliedBy(4))
        .pollInterval(shortTtl().dividedBy(4))
        .until(
            () -> {
              backend().keepAlive(s);
              return System.nanoTime() > until;
            });

    assertThat(backend().renew(key, s, grant.token()).token()).isEqualTo(grant.token());
  }

  @Test
  void keepAliveOfAnUnknownOrExpiredSessionIsSessionNotFound() {
    assertThatThrownBy(() -> backend().keepAlive(SessionId.of(UUID.randomUUID().toString())))
        .isInstanceOf(SessionNotFoundException.class);
    assertThatThrownBy(() -> backend().keepAlive(SessionId.of("not-a-session")))
        .isInstanceOf(SessionNotFoundException.class);

    SessionId s = backend().createSession("alice", shortTtl()).sessionId();
    // The session's lock becoming free is the observable sign that the backend expired it.
    LockKey witness = freshKey();
    backend().acquire(witness, s, Duration.ZERO);
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
