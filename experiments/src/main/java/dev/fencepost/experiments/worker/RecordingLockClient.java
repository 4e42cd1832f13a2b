package dev.fencepost.experiments.worker;

import dev.fencepost.history.HistoryRecorder;
import dev.fencepost.history.Records.ClientOp;
import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.client.HeldLock;
import dev.fencepost.lock.client.LockClient;
import dev.fencepost.lock.client.LockLostListener;
import dev.fencepost.lock.client.SessionStatus;
import java.time.Duration;
import java.util.Optional;

/**
 * The starter's {@link LockClient}, with a {@code client_op} record around every acquire and
 * release ({@code invokeNanos} before the call, {@code completeNanos} after): the clients' side of
 * the history the checker compares with the backend's grants.
 *
 * <p>With {@code skipCheckAfterPause}, a lock acquired before this worker was parked no longer
 * checks its local deadline once the worker is resumed. That models the pause the starter cannot
 * close (its deadline is liveness, the token is safety: ADR 0021): a process frozen a moment after
 * {@code ensureHeld()} returned, which then acts on a grant it no longer has. The failpoints sit
 * just before the checks, so without this the thawed worker would stop at its own deadline
 * (LOCK_LOST) and never reach a guard.
 */
final class RecordingLockClient implements LockClient, AutoCloseable {

  private final LockClient delegate;
  private final HistoryRecorder recorder;
  private final String workerId;
  private final ParkingFailpoint pauses;
  private final boolean skipCheckAfterPause;

  RecordingLockClient(
      LockClient delegate,
      HistoryRecorder recorder,
      String workerId,
      ParkingFailpoint pauses,
      boolean skipCheckAfterPause) {
    this.delegate = delegate;
    this.recorder = recorder;
    this.workerId = workerId;
    this.pauses = pauses;
    this.skipCheckAfterPause = skipCheckAfterPause;
  }

  @Override
  public HeldLock acquire(LockKey key, Duration wait) {
    long invoke = System.nanoTime();
    try {
      HeldLock lock = delegate.acquire(key, wait);
      op("ACQUIRE", key, lock.token().value(), invoke, "OK");
      return wrap(lock);
    } catch (RuntimeException e) {
      op("ACQUIRE", key, null, invoke, "FAILED");
      throw e;
    }
  }

  @Override
  public Optional<HeldLock> tryAcquire(LockKey key, Duration wait) {
    long invoke = System.nanoTime();
    Optional<HeldLock> lock;
    try {
      lock = delegate.tryAcquire(key, wait);
    } catch (RuntimeException e) {
      op("ACQUIRE", key, null, invoke, "FAILED");
      throw e;
    }
    if (lock.isEmpty()) {
      op("ACQUIRE", key, null, invoke, "FAILED");
      return lock;
    }
    op("ACQUIRE", key, lock.get().token().value(), invoke, "OK");
    return Optional.of(wrap(lock.get()));
  }

  @Override
  public SessionStatus sessionStatus() {
    return delegate.sessionStatus();
  }

  @Override
  public int activeGrants() {
    return delegate.activeGrants();
  }

  /** The starter closes its session on shutdown; the wrapper must not hide that. */
  @Override
  public void close() throws Exception {
    if (delegate instanceof AutoCloseable closeable) {
      closeable.close();
    }
  }

  private HeldLock wrap(HeldLock lock) {
    boolean acquiredBeforeResume = pauses == null || !pauses.resumed();
    return new HeldLock() {
      @Override
      public LockGrant grant() {
        return lock.grant();
      }

      @Override
      public boolean isHeld() {
        return lock.isHeld();
      }

      @Override
      public void ensureHeld() {
        if (skipCheckAfterPause && acquiredBeforeResume && pauses != null && pauses.resumed()) {
          return;
        }
        lock.ensureHeld();
      }

      @Override
      public Duration remaining() {
        return lock.remaining();
      }

      @Override
      public void onLost(LockLostListener listener) {
        lock.onLost(listener);
      }

      @Override
      public Optional<LockLostException.Reason> lostReason() {
        return lock.lostReason();
      }

      @Override
      public void close() {
        boolean heldBefore = lock.isHeld();
        long invoke = System.nanoTime();
        try {
          lock.close();
        } finally {
          boolean released = heldBefore && lock.lostReason().isEmpty();
          op("RELEASE", lock.key(), lock.token().value(), invoke, released ? "OK" : "FAILED");
        }
      }
    };
  }

  private void op(String op, LockKey key, Long token, long invoke, String outcome) {
    if (recorder != null) {
      recorder.record(
          new ClientOp(
              workerId, workerId, op, key.value(), token, invoke, System.nanoTime(), outcome));
    }
  }
}
