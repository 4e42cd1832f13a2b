package dev.fencepost.lock.client;

import dev.fencepost.lock.LockLostException;

/**
 * Told once when a held lock is lost: its conservative local deadline passed (EXPIRED), an operator
 * revoked it (REVOKED), its session died (SESSION_LOST), or the server no longer has the grant
 * (NOT_HELD) (FR-12).
 *
 * <p>Register one per lock with {@link HeldLock#onLost(LockLostListener)}, or declare beans of this
 * type to hear about every lock of the client. Listeners run on the client's watchdog or heartbeat
 * thread, or on the caller's thread when a check discovers the loss: they must be quick and must
 * not block (set a flag, interrupt a worker, cancel a request). A listener that throws is logged
 * and ignored.
 *
 * <p>The signal is a liveness aid: it may arrive after a paused worker has already acted, which is
 * why the guards check the token (INV-05).
 */
@FunctionalInterface
public interface LockLostListener {

  /**
   * Called once per lost lock.
   *
   * @param lock the lock that was lost
   * @param reason why, as far as the client knows
   */
  void onLockLost(HeldLock lock, LockLostException.Reason reason);
}
