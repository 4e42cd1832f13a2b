package dev.fencepost.railproxy;

/**
 * 503 {@code GRANT_KEYS_UNAVAILABLE}: the lock server's published keys could not be fetched, so no
 * grant can be verified. Nothing was recorded and nothing was sent; the worker tries again later.
 */
public class GrantKeysUnavailableException extends RuntimeException {

  public GrantKeysUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
