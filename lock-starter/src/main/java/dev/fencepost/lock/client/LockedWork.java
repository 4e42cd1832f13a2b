package dev.fencepost.lock.client;

/**
 * Work that runs while a lock is held. It receives the {@link HeldLock} explicitly: pass {@link
 * HeldLock#token()} to every guarded mutation and call {@link HeldLock#ensureHeld()} before each
 * protected side effect (FR-13). Never stash the lock or its token in a thread-local: it would be
 * lost silently the first time the work hops to another thread.
 *
 * @param <T> the work's result
 */
@FunctionalInterface
public interface LockedWork<T> {

  /**
   * Runs the work.
   *
   * @param lock the held lock, valid only for the duration of this call
   * @return the work's result, possibly null
   */
  T doWithLock(HeldLock lock);
}
