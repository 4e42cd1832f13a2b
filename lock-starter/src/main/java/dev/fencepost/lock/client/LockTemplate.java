package dev.fencepost.lock.client;

import dev.fencepost.lock.LockKey;
import java.time.Duration;
import java.util.Optional;

/**
 * Runs work under a fenced lock: acquire, run, release. The main API of the starter.
 *
 * <pre>{@code
 * lockTemplate.execute("payout:" + accountId, lock -> payouts.claim(payoutId, lock.token()));
 * }</pre>
 *
 * <p>The work receives the {@link HeldLock}; its {@code token()} is the fencing token to present to
 * every guard, as an explicit argument. After the work returns or throws, the lock is released
 * (compare-and-delete); a release that finds the grant already gone is logged as lock lost, never
 * thrown over the work's own result or exception.
 *
 * <p>Failing to acquire never runs the work (FR-27, INV-07): contention is {@link
 * dev.fencepost.lock.LockNotAcquiredException} from {@code execute} and an empty result from {@code
 * tryExecute}; an unreachable lock service is {@link
 * dev.fencepost.lock.LockServiceUnavailableException} from both.
 */
public interface LockTemplate {

  /**
   * Runs {@code work} under {@code key}, waiting up to {@code wait} for the lock.
   *
   * @throws dev.fencepost.lock.LockNotAcquiredException if the key stayed held by another
   * @throws dev.fencepost.lock.LockServiceUnavailableException if the lock service was unreachable
   * @throws dev.fencepost.lock.LockLostException if the work throws it (typically from {@link
   *     HeldLock#ensureHeld()})
   */
  <T> T execute(LockKey key, Duration wait, LockedWork<T> work);

  /**
   * Runs {@code work} under {@code key} if the lock can be had within {@code wait}; empty, without
   * running the work, if another holds it. A null result of the work is also empty.
   *
   * @throws dev.fencepost.lock.LockServiceUnavailableException if the lock service was unreachable
   */
  <T> Optional<T> tryExecute(LockKey key, Duration wait, LockedWork<T> work);

  /** The configured default wait budget ({@code fencepost.lock.client.wait}). */
  Duration defaultWait();

  /** {@link #execute(LockKey, Duration, LockedWork)} with the default wait. */
  default <T> T execute(LockKey key, LockedWork<T> work) {
    return execute(key, defaultWait(), work);
  }

  /** {@link #execute(LockKey, Duration, LockedWork)} with the default wait; validates the key. */
  default <T> T execute(String key, LockedWork<T> work) {
    return execute(LockKey.of(key), defaultWait(), work);
  }

  /** {@link #tryExecute(LockKey, Duration, LockedWork)} with the default wait. */
  default <T> Optional<T> tryExecute(LockKey key, LockedWork<T> work) {
    return tryExecute(key, defaultWait(), work);
  }

  /**
   * {@link #tryExecute(LockKey, Duration, LockedWork)} with the default wait; validates the key.
   */
  default <T> Optional<T> tryExecute(String key, LockedWork<T> work) {
    return tryExecute(LockKey.of(key), defaultWait(), work);
  }
}
