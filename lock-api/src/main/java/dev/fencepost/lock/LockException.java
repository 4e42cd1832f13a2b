package dev.fencepost.lock;

/**
 * Base of every lock-contract failure. Each subtype has a stable {@link #code()} that is also the
 * {@code code} of the HTTP problem document, so a client maps a response back to the same type.
 */
public abstract class LockException extends RuntimeException {

  protected LockException(String message) {
    super(message);
  }

  protected LockException(String message, Throwable cause) {
    super(message, cause);
  }

  /** The stable, machine-readable reason, for example {@code LOCK_HELD}. */
  public abstract String code();
}
