package dev.fencepost.lock.client;

import dev.fencepost.lock.LockKey;
import java.time.Duration;
import java.util.Optional;

/**
 * The lower-level client API: acquire a lock and hold it yourself. Prefer {@link LockTemplate},
 * which releases for you.
 *
 * <p>One client keeps one session with the lock service (FR-04), kept alive by a heartbeat on a
 * thread of its own every TTL/3, whatever the work is doing. Every lock the client acquires is
 * attached to that session.
 *
 * <p>Acquire fails closed (FR-27): a lock server that cannot be reached within the bounded,
 * jittered retry budget (FR-28) raises {@link dev.fencepost.lock.LockServiceUnavailableException}.
 * No configuration turns that into a run without a grant.
 */
public interface LockClient {

  /**
   * Acquires {@code key}, letting the server wait up to {@code wait} for the holder to let go.
   *
   * @return the held lock; close it (try-with-resources) to release
   * @throws dev.fencepost.lock.LockNotAcquiredException if another session still holds the key
   *     after {@code wait}: a normal outcome of contention (UC-02)
   * @throws dev.fencepost.lock.LockServiceUnavailableException if the lock service could not be
   *     reached within the retry budget: fail closed (UC-08)
   * @throws LockRequestRejectedException if the server refused the request as malformed
   */
  HeldLock acquire(LockKey key, Duration wait);

  /**
   * Like {@link #acquire(LockKey, Duration)}, but contention is an empty result instead of an
   * exception. Unavailability is still an exception: empty never means "could not ask".
   */
  Optional<HeldLock> tryAcquire(LockKey key, Duration wait);

  /** The session as this client sees it, for health checks and operators. */
  SessionStatus sessionStatus();

  /** How many locks this client currently holds by its own conservative view. */
  int activeGrants();
}
