package dev.fencepost.lock.client.impl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lock.client.LockClientMetrics;
import dev.fencepost.lock.client.testing.TestSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The deadline as a thawed thread sees it (FR-13): in a stop-the-world pause the watchdog is frozen
 * too, so the check must not depend on it having run. These locks are built with no watchdog at
 * all.
 */
@Tag("FR-13")
class DefaultHeldLockTest {

  private final DefaultLockClient client =
      new DefaultLockClient(
          TestSettings.against("http://127.0.0.1:9").build(), LockClientMetrics.NOOP, List.of());
  private final LockGrant grant =
      new LockGrant(
          LockKey.of("payout:acc-1"),
          "o",
          SessionId.of("s"),
          FencingToken.of(5),
          Instant.EPOCH,
          Instant.EPOCH.plusSeconds(2),
          "original");
  private final ClientSession session =
      new ClientSession(SessionId.of("s"), System.nanoTime(), Duration.ofSeconds(2).toNanos());

  @AfterEach
  void close() {
    client.close();
  }

  @Test
  void aPassedDeadlineIsSeenByTheCheckItselfWithoutAnyWatchdog() {
    DefaultHeldLock lock = lockWithDeadline(System.nanoTime() - 1);
    AtomicReference<String> signalledOn = new AtomicReference<>();
    lock.onLost((l, reason) -> signalledOn.set(Thread.currentThread().getName()));

    assertThat(lock.isHeld()).isFalse();
    assertThat(lock.lostReason()).contains(LockLostException.Reason.EXPIRED);
    assertThat(signalledOn.get()).isEqualTo(Thread.currentThread().getName());
    assertThatThrownBy(lock::ensureHeld)
        .isInstanceOfSatisfying(
            LockLostException.class,
            e -> assertThat(e.reason()).isEqualTo(LockLostException.Reason.EXPIRED));
    assertThat(lock.remaining()).isEqualTo(Duration.ZERO);
  }

  @Test
  void aConfirmationArrivingAfterTheDeadlineDoesNotReviveTheLock() {
    DefaultHeldLock lock = confirmedAfterItsDeadline(renewed("late"));

    assertThat(lock.isHeld()).isFalse();
    assertThat(lock.lostReason()).contains(LockLostException.Reason.EXPIRED);
  }

  @Test
  void aTimelyConfirmationMovesTheDeadlineToSendTimePlusTtlMinusMargin() {
    DefaultHeldLock lock = confirmedInTime(null);

    assertThat(lock.isHeld()).isTrue();
    assertThat(lock.remaining())
        .isGreaterThan(Duration.ofSeconds(6))
        .isLessThan(Duration.ofSeconds(7));
  }

  @Test
  void aTimelyConfirmationHandsOnTheRenewedSignedGrantSoWorkPresentsTheLatestOne() {
    DefaultHeldLock lock = confirmedInTime(renewed("fresh"));

    assertThat(lock.signedGrant()).isEqualTo("fresh");
    assertThat(lock.token()).isEqualTo(FencingToken.of(5));
  }

  @Test
  void aRenewAnswerForAnotherTokenNeverReplacesTheGrant() {
    LockGrant other =
        new LockGrant(
            grant.key(),
            "o",
            SessionId.of("s"),
            FencingToken.of(6),
            Instant.EPOCH,
            Instant.EPOCH.plusSeconds(4),
            "other");

    DefaultHeldLock lock = confirmedInTime(other);

    assertThat(lock.signedGrant()).isEqualTo("original");
  }

  @Test
  void aConfirmationAfterTheDeadlineKeepsTheOldGrant() {
    DefaultHeldLock lock = confirmedAfterItsDeadline(renewed("late"));

    assertThat(lock.signedGrant()).isEqualTo("original");
  }

  /**
   * A lock 1 s before its deadline, confirmed by an answer to a request sent now: TTL 10 s, margin
   * 3 s, with {@code renewal} as the server's renewed grant (null: none).
   */
  private DefaultHeldLock confirmedInTime(LockGrant renewal) {
    long now = System.nanoTime();
    DefaultHeldLock lock = lockWithDeadline(now + Duration.ofSeconds(1).toNanos());
    lock.confirmed(now, Duration.ofSeconds(10).toNanos(), Duration.ofSeconds(3).toNanos(), renewal);
    return lock;
  }

  /** A lock already past its deadline when the confirmation of a request sent now arrives. */
  private DefaultHeldLock confirmedAfterItsDeadline(LockGrant renewal) {
    long sent = System.nanoTime();
    DefaultHeldLock lock = lockWithDeadline(sent - 1);
    lock.confirmed(
        sent, Duration.ofSeconds(2).toNanos(), Duration.ofMillis(600).toNanos(), renewal);
    return lock;
  }

  private LockGrant renewed(String signed) {
    return new LockGrant(
        grant.key(),
        "o",
        SessionId.of("s"),
        grant.token(),
        Instant.EPOCH,
        Instant.EPOCH.plusSeconds(4),
        signed);
  }

  @Test
  void aListenerRegisteredAfterTheLossIsToldAtOnce() {
    DefaultHeldLock lock = lockWithDeadline(System.nanoTime() + Duration.ofMinutes(1).toNanos());
    assertThat(lock.lose(LockLostException.Reason.REVOKED, "test")).isTrue();
    AtomicReference<LockLostException.Reason> told = new AtomicReference<>();

    lock.onLost((l, reason) -> told.set(reason));

    assertThat(told.get()).isEqualTo(LockLostException.Reason.REVOKED);
    assertThat(lock.lose(LockLostException.Reason.EXPIRED, "again")).isFalse();
  }

  private DefaultHeldLock lockWithDeadline(long deadlineNanos) {
    return new DefaultHeldLock(
        client, grant, session, System.nanoTime(), deadlineNanos, new Object());
  }
}
