package dev.fencepost.lock;

import java.time.Duration;
import java.time.Instant;

/**
 * A session as the server sees it after create or keepalive.
 *
 * @param sessionId the session
 * @param owner the client's self-declared identity
 * @param ttl how long the session lives without a keepalive
 * @param expiresAt when the backend will expire it, by the backend's clock
 */
public record SessionInfo(SessionId sessionId, String owner, Duration ttl, Instant expiresAt) {}
