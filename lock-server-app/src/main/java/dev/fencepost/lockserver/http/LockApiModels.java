package dev.fencepost.lockserver.http;

import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockInfo;
import dev.fencepost.lock.RevokeResult;
import dev.fencepost.lock.SessionInfo;
import java.time.Instant;

/**
 * The JSON bodies of the v1 HTTP contract (docs/lock-server.md). Fields may be added, never
 * changed.
 */
final class LockApiModels {

  private LockApiModels() {}

  record CreateSessionRequest(String owner, Long ttlMillis) {}

  record SessionResponse(String sessionId, String owner, long ttlMillis, Instant expiresAt) {
    static SessionResponse of(SessionInfo session) {
      return new SessionResponse(
          session.sessionId().value(),
          session.owner(),
          session.ttl().toMillis(),
          session.expiresAt());
    }
  }

  record AcquireRequest(String sessionId, Long waitMillis) {}

  record GrantRequest(String sessionId, Long token) {}

  record GrantResponse(
      String key,
      String owner,
      String sessionId,
      long token,
      Instant acquiredAt,
      Instant expiresAt,
      String signedGrant) {
    static GrantResponse of(LockGrant grant) {
      return new GrantResponse(
          grant.key().value(),
          grant.owner(),
          grant.sessionId().value(),
          grant.token().value(),
          grant.acquiredAt(),
          grant.expiresAt(),
          grant.signedGrant());
    }
  }

  /** {@code principal}: the authenticated caller that created the holder's session. */
  record LockInfoResponse(
      String key,
      boolean held,
      String owner,
      String principal,
      String sessionId,
      Long token,
      Instant acquiredAt,
      Instant expiresAt,
      int waiters) {
    static LockInfoResponse of(LockInfo info, String principal) {
      return new LockInfoResponse(
          info.key().value(),
          info.held(),
          info.owner(),
          principal,
          info.sessionId() == null ? null : info.sessionId().value(),
          info.token() == null ? null : info.token().value(),
          info.acquiredAt(),
          info.expiresAt(),
          info.waiters());
    }

    LockInfoResponse withoutSessionId() {
      return new LockInfoResponse(
          key, held, owner, principal, null, token, acquiredAt, expiresAt, waiters);
    }
  }

  /** {@code operator} is optional and must be the authenticated caller when given (ADR 0131). */
  record RevokeRequest(String operator, String reason) {}

  record RevokeResponse(String key, Long revokedToken, String revokedOwner) {
    static RevokeResponse of(RevokeResult result) {
      return new RevokeResponse(
          result.key().value(),
          result.revokedToken() == null ? null : result.revokedToken().value(),
          result.revokedOwner());
    }
  }
}
