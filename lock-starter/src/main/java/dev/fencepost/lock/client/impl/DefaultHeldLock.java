package dev.fencepost.lock.client.impl;

import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.LockLostException.Reason;
import dev.fencepost.lock.client.HeldLock;
import dev.fencepost.lock.client.LockLostListener;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A held lock and its conservative local deadline (FR-11), on {@link System#nanoTime()} only.
 *
 * <p>The deadline starts at {@code acquireSendTime + lease - margin}, where {@code lease} is what
 * the server granted ({@code expiresAt - acquiredAt}, both by the server's clock, at most the TTL)
 * and {@code margin = ttl * safetyMargin}. Each successful per-heartbeat renew moves it to {@code
 * renewSendTime + ttl - margin}. Send times, not receive times: the server extended the lease at
 * some instant after the request left, so the local deadline can only be early, never late.
 *
 * <p>The moment the deadline passes the lock is lost for good (EXPIRED), detected two ways: a
 * watchdog task scheduled at the deadline (FR-12), and {@link #isHeld()} computing it on every
 * call, so a thread that was itself paused sees it at once whether or not the watchdog ran (FR-13).
 * A renew answer that arrives after the deadline does not revive the lock.
 */
final class DefaultHeldLock implements HeldLock {

  private final DefaultLockClient client;
  // The latest grant for this lock: a renew answers with a freshly signed one (ADR 0135).
  private volatile LockGrant grant;
  private final ClientSession session;
  private final long acquiredAtNanos;
  private final Object ticket;
  private final List<LockLostListener> listeners = new CopyOnWriteArrayList<>();

  // Guarded by this.
  private long deadlineNanos;
  private Reason lostReason;
  private String lostDetail;
  private boolean released;
  private ScheduledFuture<?> deadlineCheck;

  DefaultHeldLock(
      DefaultLockClient client,
      LockGrant grant,
      ClientSession session,
      long acquiredAtNanos,
      long deadlineNanos,
      Object ticket) {
    this.client = client;
    this.ticket = ticket;
    this.grant = grant;
    this.session = session;
    this.acquiredAtNanos = acquiredAtNanos;
    this.deadlineNanos = deadlineNanos;
  }

  @Override
  public LockGrant grant() {
    return grant;
  }

  ClientSession session() {
    return session;
  }

  long acquiredAtNanos() {
    return acquiredAtNanos;
  }

  /** The local reservation this lock holds (see {@link LocalReservations}). */
  Object ticket() {
    return ticket;
  }

  @Override
  public boolean isHeld() {
    boolean expiredNow;
    synchronized (this) {
      if (released || lostReason != null) {
        return false;
      }
      if (System.nanoTime() - deadlineNanos < 0) {
        return true;
      }
      expiredNow = markLost(Reason.EXPIRED, expiredDetail());
    }
    if (expiredNow) {
      client.onLost(this, Reason.EXPIRED, expiredDetail());
    }
    return false;
  }

  @Override
  public void ensureHeld() {
    if (isHeld()) {
      return;
    }
    synchronized (this) {
      if (lostReason != null) {
        throw new LockLostException(grant.key(), lostReason, lostDetail);
      }
    }
    throw new LockLostException(grant.key(), Reason.NOT_HELD, "the lock has been released");
  }

  @Override
  public synchronized Duration remaining() {
    if (released || lostReason != null) {
      return Duration.ZERO;
    }
    return Duration.ofNanos(deadlineNanos - System.nanoTime());
  }

  @Override
  public void onLost(LockLostListener listener) {
    Reason reason;
    synchronized (this) {
      reason = lostReason;
      if (reason == null) {
        listeners.add(listener);
        return;
      }
    }
    client.notifyListener(listener, this, reason);
  }

  @Override
  public synchronized Optional<Reason> lostReason() {
    return Optional.ofNullable(lostReason);
  }

  @Override
  public void close() {
    client.release(this);
  }

  @Override
  public String toString() {
    return "HeldLock[" + grant.key() + ", token " + grant.token() + "]";
  }

  List<LockLostListener> listeners() {
    return listeners;
  }

  /** Still held and not released: worth renewing. */
  synchronized boolean isActive() {
    return !released && lostReason == null;
  }

  /**
   * A renew sent at {@code sentNanos} succeeded: move the deadline to {@code sentNanos + ttl -
   * margin}, unless the old deadline has already passed, in which case the lock is lost (EXPIRED)
   * and stays lost.
   */
  void confirmed(long sentNanos, long ttlNanos, long marginNanos, LockGrant renewed) {
    boolean expiredNow;
    synchronized (this) {
      if (released || lostReason != null) {
        return;
      }
      if (System.nanoTime() - deadlineNanos < 0) {
        replaceGrant(renewed);
        long candidate = sentNanos + ttlNanos - marginNanos;
        if (candidate - deadlineNanos > 0) {
          deadlineNanos = candidate;
        }
        return;
      }
      expiredNow = markLost(Reason.EXPIRED, expiredDetail());
    }
    if (expiredNow) {
      client.onLost(this, Reason.EXPIRED, expiredDetail());
    }
  }

  /** Keeps the renewed grant's signature; a grant of another key or token is never taken. */
  private void replaceGrant(LockGrant renewed) {
    if (renewed != null
        && renewed.key().equals(grant.key())
        && renewed.token().equals(grant.token())) {
      grant = renewed;
    }
  }

  /** Schedules the watchdog check at the current deadline. */
  synchronized void scheduleDeadlineCheck(ScheduledExecutorService watchdog) {
    if (released || lostReason != null) {
      return;
    }
    long delay = Math.max(0, deadlineNanos - System.nanoTime());
    try {
      deadlineCheck = watchdog.schedule(() -> checkDeadline(watchdog), delay, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // The client is stopping; stop() signals every live lock itself.
    }
  }

  /** The watchdog task: lost if the deadline has passed, else check again at the new deadline. */
  private void checkDeadline(ScheduledExecutorService watchdog) {
    boolean expiredNow;
    synchronized (this) {
      if (released || lostReason != null) {
        return;
      }
      if (System.nanoTime() - deadlineNanos < 0) {
        scheduleDeadlineCheck(watchdog);
        return;
      }
      expiredNow = markLost(Reason.EXPIRED, expiredDetail());
    }
    if (expiredNow) {
      client.onLost(this, Reason.EXPIRED, expiredDetail());
    }
  }

  /**
   * Marks the lock lost for {@code reason}; true if this call did it (then the caller must call
   * {@link DefaultLockClient#onLost}).
   */
  synchronized boolean lose(Reason reason, String detail) {
    if (released || lostReason != null) {
      return false;
    }
    return markLost(reason, detail);
  }

  /** What the lock was when {@link #markReleased()} was called. */
  enum ReleaseOutcome {
    ALREADY_RELEASED,
    WAS_HELD,
    WAS_LOST
  }

  /** Marks the lock released (it is then neither renewed nor checked). */
  synchronized ReleaseOutcome markReleased() {
    if (released) {
      return ReleaseOutcome.ALREADY_RELEASED;
    }
    released = true;
    cancelCheck();
    return lostReason == null ? ReleaseOutcome.WAS_HELD : ReleaseOutcome.WAS_LOST;
  }

  /** After release: the server said the grant was already gone. True if not already lost. */
  synchronized boolean loseOnRelease(String detail) {
    if (lostReason != null) {
      return false;
    }
    lostReason = Reason.NOT_HELD;
    lostDetail = detail;
    return true;
  }

  private boolean markLost(Reason reason, String detail) {
    lostReason = reason;
    lostDetail = detail;
    cancelCheck();
    return true;
  }

  private void cancelCheck() {
    if (deadlineCheck != null) {
      deadlineCheck.cancel(false);
      deadlineCheck = null;
    }
  }

  private String expiredDetail() {
    return "the client's conservative local deadline passed without a confirming heartbeat";
  }
}
