package dev.fencepost.lock.client.impl;

import dev.fencepost.lock.SessionId;

/**
 * The client's view of its one session (FR-04): the id, and the send time of the last request that
 * the server confirmed extended it, by the monotonic clock. The session's own conservative
 * deadline, {@code confirmedAt + ttl - margin}, feeds the health indicator; each lock keeps its own
 * deadline (see {@link DefaultHeldLock}).
 */
final class ClientSession {

  private final SessionId id;
  private final long ttlNanos;
  private volatile long confirmedAtNanos;
  private volatile boolean lost;

  /**
   * @param ttlNanos the TTL the deadline arithmetic uses: the smaller of the TTL asked for and the
   *     TTL the server says it granted, so a server that grants less is never trusted for more
   */
  ClientSession(SessionId id, long createdSendNanos, long ttlNanos) {
    this.id = id;
    this.confirmedAtNanos = createdSendNanos;
    this.ttlNanos = ttlNanos;
  }

  SessionId id() {
    return id;
  }

  long ttlNanos() {
    return ttlNanos;
  }

  long confirmedAtNanos() {
    return confirmedAtNanos;
  }

  /** A keepalive sent at {@code sentNanos} succeeded. */
  synchronized void confirm(long sentNanos) {
    if (sentNanos - confirmedAtNanos > 0) {
      confirmedAtNanos = sentNanos;
    }
  }

  boolean isLost() {
    return lost;
  }

  /** Marks the session lost; true only for the first call. */
  synchronized boolean markLost() {
    if (lost) {
      return false;
    }
    lost = true;
    return true;
  }
}
