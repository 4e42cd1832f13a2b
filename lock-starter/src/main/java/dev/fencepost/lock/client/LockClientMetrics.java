package dev.fencepost.lock.client;

import dev.fencepost.lock.LockLostException;
import java.time.Duration;
import java.util.function.IntSupplier;

/**
 * Where the client reports what it measures. The starter supplies a Micrometer implementation when
 * Micrometer and a {@code MeterRegistry} are present, and {@link #NOOP} otherwise.
 *
 * <p>Every dimension is a bounded enum: an implementation must never tag a measurement with a key,
 * owner, token or session id (NFR-09).
 */
public interface LockClientMetrics {

  /** How an acquire ended. */
  enum AcquireOutcome {
    /** A grant was issued. */
    ACQUIRED,
    /** Another session held the key for the whole wait: contention, not an error. */
    HELD,
    /** The lock service could not be reached within the retry budget: failed closed. */
    UNAVAILABLE,
    /** The server refused the request as invalid. */
    REJECTED
  }

  /** How one heartbeat (the session keepalive) ended. */
  enum HeartbeatOutcome {
    /** The server extended the session. */
    OK,
    /** The server could not be reached or answered with an error; nothing was extended. */
    FAILED,
    /** The server no longer has the session. */
    SESSION_LOST
  }

  /** One acquire, from the first attempt to the outcome. */
  void acquire(AcquireOutcome outcome, Duration elapsed);

  /** One session keepalive. */
  void heartbeat(HeartbeatOutcome outcome, Duration elapsed);

  /** One lock lost. */
  void lost(LockLostException.Reason reason);

  /** Called once by the client so the implementation can publish the held-locks gauge. */
  void activeGrants(IntSupplier activeGrants);

  /** Records nothing: the default when Micrometer is absent. */
  LockClientMetrics NOOP =
      new LockClientMetrics() {
        @Override
        public void acquire(AcquireOutcome outcome, Duration elapsed) {}

        @Override
        public void heartbeat(HeartbeatOutcome outcome, Duration elapsed) {}

        @Override
        public void lost(LockLostException.Reason reason) {}

        @Override
        public void activeGrants(IntSupplier activeGrants) {}

        @Override
        public String toString() {
          return "LockClientMetrics.NOOP";
        }
      };
}
