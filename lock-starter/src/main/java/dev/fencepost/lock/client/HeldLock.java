package dev.fencepost.lock.client;

import dev.fencepost.lock.LockHandle;
import dev.fencepost.lock.LockLostException;
import java.util.Optional;

/**
 * A lock this client holds: the grant with its fencing token, the client's conservative local
 * deadline, and the lock-lost signal.
 *
 * <p>The deadline is the client's own, from {@link System#nanoTime()} only (ADR 0021): the send
 * time of the last request that confirmed the grant, plus the lease the server granted, minus a
 * safety margin of the TTL (FR-11). It is deliberately earlier than the server's expiry. The moment
 * it passes, the lock is lost for good, even if a late answer from the server would have extended
 * it (the client's view of its lease is the conservative one, ADR 0021).
 *
 * <p>{@link #close()} releases the lock (compare-and-delete, FR-05). {@link LockTemplate} does that
 * for you; with {@link LockClient#acquire} use try-with-resources.
 */
public interface HeldLock extends LockHandle, AutoCloseable {

  /**
   * Registers a listener told once when this lock is lost; if it is already lost, the listener is
   * called at once on the calling thread.
   */
  void onLost(LockLostListener listener);

  /** Why this lock was lost, or empty while it is held (and after a clean release). */
  Optional<LockLostException.Reason> lostReason();

  /**
   * Releases the lock: compare-and-delete on this grant (FR-05). Idempotent. Never throws: a grant
   * that is already gone is reported as a lock-lost event (NOT_HELD), and a lock server that cannot
   * be reached leaves the lease to expire on the server.
   *
   * <p>Close a lost lock too: until it is closed, other threads of the same client cannot acquire
   * its key, because they would share this session and could be handed this very grant and token.
   */
  @Override
  void close();
}
