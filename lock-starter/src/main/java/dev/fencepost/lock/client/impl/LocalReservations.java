package dev.fencepost.lock.client.impl;

import dev.fencepost.lock.LockKey;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Mutual exclusion between threads of one client. All of a client's locks share one session, and
 * the server answers an acquire by the session that already holds a key with the same grant and
 * token (so that a retried request cannot mint a second token, docs/lock-server.md). Two threads of
 * one client asking for the same key would therefore both "hold" it under one token, and no guard
 * could tell them apart. Each key is reserved locally before the request is sent and freed only
 * after the lock is released.
 */
final class LocalReservations {

  private final Map<LockKey, Object> reserved = new HashMap<>();

  /**
   * Reserves {@code key} for {@code ticket}, waiting up to {@code waitNanos} for another thread of
   * this client to release it.
   *
   * @return whether the key is now reserved for {@code ticket}
   */
  synchronized boolean reserve(LockKey key, Object ticket, long waitNanos)
      throws InterruptedException {
    long deadline = System.nanoTime() + waitNanos;
    while (reserved.containsKey(key)) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    reserved.put(key, ticket);
    return true;
  }

  /** Frees {@code key} if {@code ticket} holds it, waking threads waiting for it. */
  synchronized void free(LockKey key, Object ticket) {
    if (reserved.remove(key, ticket)) {
      notifyAll();
    }
  }

  synchronized int size() {
    return reserved.size();
  }
}
