package dev.fencepost.railproxy;

/**
 * The proxy could not get its own bearer token for the rail (issuer down, token file unreadable,
 * nothing configured). Thrown before the intent is recorded: nothing was sent and nothing was
 * recorded, so the answer is 503 {@code RAIL_CREDENTIALS_UNAVAILABLE} (ADR 0145).
 */
public class RailCredentialsUnavailableException extends RuntimeException {

  public RailCredentialsUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
