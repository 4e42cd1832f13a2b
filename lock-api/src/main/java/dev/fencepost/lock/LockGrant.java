package dev.fencepost.lock;

import java.time.Instant;
import java.util.Objects;

/**
 * The lock service's answer to a successful acquire or renew, as the server sees it.
 *
 * <p>{@code expiresAt} is the server's clock and the server's generous view of the lease; a client
 * must never compare it with its own wall clock to decide whether to keep working. The client's
 * conservative local deadline lives on {@link LockHandle}.
 *
 * @param key the lock
 * @param owner the holder's self-declared identity, for audit and inspection
 * @param sessionId the session the grant is attached to
 * @param token the fencing token: the only part of a grant a guard needs
 * @param acquiredAt when the backend granted it, by the backend's clock
 * @param expiresAt when the backend will consider it expired unless renewed, by its clock
 * @param signedGrant the lock server's signature over this grant (key, token, session, expiry): a
 *     compact JWS the rail proxy verifies before it looks at the token (ADR 0135); null only for a
 *     grant that has not left the backend yet. Present it together with {@link #token()}.
 */
public record LockGrant(
    LockKey key,
    String owner,
    SessionId sessionId,
    FencingToken token,
    Instant acquiredAt,
    Instant expiresAt,
    String signedGrant) {

  /** A grant as a backend makes it, not yet signed by the lock server. */
  public LockGrant(
      LockKey key,
      String owner,
      SessionId sessionId,
      FencingToken token,
      Instant acquiredAt,
      Instant expiresAt) {
    this(key, owner, sessionId, token, acquiredAt, expiresAt, null);
  }

  public LockGrant {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(acquiredAt, "acquiredAt");
    Objects.requireNonNull(expiresAt, "expiresAt");
  }

  /** This grant with the lock server's signature over it. */
  public LockGrant withSignedGrant(String signed) {
    return new LockGrant(key, owner, sessionId, token, acquiredAt, expiresAt, signed);
  }
}
