package dev.fencepost.lock.client;

import java.time.Duration;

/**
 * The client's session as the client sees it (docs/lock-starter.md, liveness and safety): for the
 * health indicator and for operators. Never a correctness input.
 *
 * @param state where the session stands
 * @param sessionId the current session's id, or null when there is none
 * @param ttl the session TTL the client asks for
 * @param remaining time left before the session's conservative local deadline; zero when there is
 *     no session
 * @param activeGrants locks currently held by this client
 * @param consecutiveHeartbeatFailures heartbeats that failed in a row, 0 when the last succeeded
 * @param lastError the last heartbeat or session error, or null
 */
public record SessionStatus(
    State state,
    String sessionId,
    Duration ttl,
    Duration remaining,
    int activeGrants,
    int consecutiveHeartbeatFailures,
    String lastError) {

  /** Where the client's session stands. */
  public enum State {
    /** A session exists and its conservative local deadline is in the future. */
    CONNECTED,
    /** A session exists but heartbeats have not confirmed it in time: its deadline has passed. */
    EXPIRED,
    /** No session: not created yet, lost and not yet recreated, or the server is unreachable. */
    DISCONNECTED,
    /** The client has been stopped and its session closed. */
    STOPPED
  }
}
