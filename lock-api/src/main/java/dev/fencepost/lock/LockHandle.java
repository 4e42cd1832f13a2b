package dev.fencepost.lock;

import java.time.Duration;

/**
 * A held lock as application code sees it: the grant, its fencing token, and the client's
 * conservative view of whether it is still held.
 *
 * <p>Pass {@link #token()} explicitly to every guarded mutation. Call {@link #ensureHeld()}
 * immediately before each protected side effect: it is a <b>liveness aid</b> that makes a worker
 * that has lost its lease stop early, not a safety mechanism; between the check and the side effect
 * the lease can still expire, which the guards' fences then catch (FR-13).
 */
public interface LockHandle {

  /** The grant as the server issued it. */
  LockGrant grant();

  /** The fencing token to present to every guard. Safety. */
  default FencingToken token() {
    return grant().token();
  }

  /**
   * The lock server's signed grant for {@link #token()}, the latest one it issued (a renew replaces
   * it): present it with the token to a guard that verifies grants, the rail proxy (ADR 0135).
   */
  default String signedGrant() {
    return grant().signedGrant();
  }

  /** The lock's key. */
  default LockKey key() {
    return grant().key();
  }

  /**
   * Whether the client's conservative local deadline is still in the future and no lock-lost signal
   * has fired. Liveness aid only.
   */
  boolean isHeld();

  /**
   * Throws {@link LockLostException} if {@link #isHeld()} is false. Liveness aid only: call it
   * before each protected side effect, and still present the token to the guard.
   */
  void ensureHeld();

  /**
   * Time left before the client's conservative local deadline, by the monotonic clock; zero or
   * negative once it has passed.
   */
  Duration remaining();
}
