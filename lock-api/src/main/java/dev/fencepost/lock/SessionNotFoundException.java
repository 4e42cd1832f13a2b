package dev.fencepost.lock;

/**
 * The session does not exist or has expired; every lock attached to it has been released. Code
 * {@code SESSION_NOT_FOUND}.
 */
public class SessionNotFoundException extends LockException {

  private final SessionId sessionId;

  public SessionNotFoundException(SessionId sessionId) {
    super("session " + sessionId + " does not exist or has expired");
    this.sessionId = sessionId;
  }

  public SessionId sessionId() {
    return sessionId;
  }

  @Override
  public String code() {
    return "SESSION_NOT_FOUND";
  }
}
