package dev.fencepost.lock.client;

import dev.fencepost.lock.LockException;

/**
 * The lock server refused a request as invalid (a 4xx other than the contract's lock outcomes): a
 * bug or a misconfiguration on the client side, for example a TTL outside the server's bounds.
 * Never retried (FR-28), and like every acquire failure it runs no work (FR-27). The {@link
 * #code()} is the server's problem code.
 */
public class LockRequestRejectedException extends LockException {

  private final int status;
  private final String code;

  public LockRequestRejectedException(int status, String code, String detail) {
    super("lock server rejected the request: " + status + " " + code + ": " + detail);
    this.status = status;
    this.code = code == null ? "REJECTED" : code;
  }

  /** The HTTP status the server answered. */
  public int status() {
    return status;
  }

  @Override
  public String code() {
    return code;
  }
}
