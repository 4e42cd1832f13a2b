package dev.fencepost.lock;

/**
 * The identity of one client session: the liveness relationship that every lock of a client
 * attaches to (FR-04). Opaque to callers.
 *
 * @param value the server-assigned identifier
 */
public record SessionId(String value) {

  public SessionId {
    if (value == null || value.isBlank() || value.length() > 128) {
      throw new IllegalArgumentException("a session id is 1..128 non-blank characters");
    }
  }

  public static SessionId of(String value) {
    return new SessionId(value);
  }

  @Override
  public String toString() {
    return value;
  }
}
