package dev.fencepost.lockserver.service;

import dev.fencepost.lock.SessionId;

/**
 * A call on a session created by another principal: 403 {@code SESSION_NOT_OWNED}, and nothing
 * changes (ADR 0133). Not a lock-api exception: a correct client never sees it.
 */
public class SessionNotOwnedException extends RuntimeException {

  public SessionNotOwnedException(SessionId sessionId) {
    super("session " + sessionId.value() + " belongs to another caller");
  }
}
