package dev.fencepost.lockserver.service;

import java.time.Duration;

/**
 * A request refused because a capacity bound of the lock server is reached (ADR 0165): 429 with
 * {@code Retry-After} and the stable code of the bound. Nothing was changed.
 */
public final class CapacityExceededException extends RuntimeException {

  /** The bounds, each with its problem code and the bounded metric tag it is counted under. */
  public enum Limit {
    /** {@code fencepost.lock.max-waiting-acquires}: waiting acquires on this instance. */
    WAITING_ACQUIRES("TOO_MANY_WAITING_ACQUIRES", "waiting_acquires"),
    /** {@code fencepost.lock.max-waiting-acquires-per-session}: waiting acquires of a session. */
    SESSION_WAITING_ACQUIRES("TOO_MANY_WAITING_ACQUIRES", "session_waiting_acquires"),
    /** {@code fencepost.lock.max-sessions}: live sessions in the backend. */
    SESSIONS("TOO_MANY_SESSIONS", "sessions"),
    /** {@code fencepost.lock.max-keepalive-streams}: keepalive streams open on this instance. */
    KEEPALIVE_STREAMS("TOO_MANY_KEEPALIVE_STREAMS", "keepalive_streams");

    private final String code;
    private final String tag;

    Limit(String code, String tag) {
      this.code = code;
      this.tag = tag;
    }

    /** The problem code the client branches on. */
    public String code() {
      return code;
    }

    /** The metric and log tag: one of a fixed few values. */
    public String tag() {
      return tag;
    }
  }

  private final Limit limit;
  private final Duration retryAfter;

  public CapacityExceededException(Limit limit, long max, Duration retryAfter) {
    super(limit.tag() + " at its maximum of " + max + "; try again later");
    this.limit = limit;
    this.retryAfter = retryAfter;
  }

  public Limit limit() {
    return limit;
  }

  public Duration retryAfter() {
    return retryAfter;
  }
}
