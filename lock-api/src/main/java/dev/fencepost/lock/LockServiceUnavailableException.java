package dev.fencepost.lock;

/**
 * The lock service or its backend could not be reached within the bounded retry budget. The caller
 * fails closed: no grant, no side effect (FR-27, UC-08). There is deliberately no way to proceed
 * without a grant. Code {@code LOCK_SERVICE_UNAVAILABLE}.
 */
public class LockServiceUnavailableException extends LockException {

  public LockServiceUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public String code() {
    return "LOCK_SERVICE_UNAVAILABLE";
  }
}
