package dev.fencepost.lockserver.backend;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockInfo;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.RevokeResult;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lock.SessionInfo;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The backend SPI: what a store must do to be a Fencepost lock backend. For backend implementers,
 * not for lock users. Two implementations exist, PostgreSQL and etcd, and both must pass the
 * contract suite {@code LockBackendContractTest} unchanged (FR-09).
 *
 * <p>Rules every implementation keeps:
 *
 * <ul>
 *   <li>At most one valid grant per key at any instant, decided atomically by the store (INV-06).
 *   <li>Tokens strictly increase per key for the store's whole life; a token is handed out only
 *       after the store has durably committed it (INV-04, ADRs 0001 and 0011).
 *   <li>Expiry is decided by the store's own clock (database {@code now()}, etcd leases), never by
 *       a timer in the lock server (ADRs 0004 and 0010). A lock expires when its session expires.
 *   <li>Acquire by the session that already holds the key returns the same token, never a new one.
 *   <li>Release and renew are compare-and-set on (key, session, token) (FR-05, FR-06).
 *   <li>Force-revoke frees the key, makes every later token for it higher than the revoked one, and
 *       records an audit entry in the store (FR-08). Logging and metrics are the caller's job.
 * </ul>
 *
 * Failures the caller cannot fix (store unreachable) surface as {@link
 * BackendUnavailableException}.
 */
public interface LockBackend {

  /** A short name for logs and metrics tags: {@code postgres} or {@code etcd}. */
  String name();

  /**
   * Creates a session that lives {@code ttl} past its last keepalive (FR-04), recording {@code
   * principal}, the authenticated caller that creates it, with it (null: none recorded).
   */
  SessionInfo createSession(String owner, String principal, Duration ttl);

  /** A session with no principal recorded. */
  default SessionInfo createSession(String owner, Duration ttl) {
    return createSession(owner, null, ttl);
  }

  /**
   * The principal recorded with a live session: empty when the session does not exist, has expired,
   * or was created without one. A session's principal never changes.
   */
  Optional<String> sessionPrincipal(SessionId sessionId);

  /**
   * Extends a live session by its TTL, by the store's clock.
   *
   * @throws dev.fencepost.lock.SessionNotFoundException if it does not exist or has expired
   */
  SessionInfo keepAlive(SessionId sessionId);

  /**
   * {@link #keepAlive} without holding the caller's thread while the store works: the future
   * completes with what {@code keepAlive} returns, or fails with what it throws, on whichever
   * thread the backend finishes on. Unless a backend does better, the work is done on the caller's
   * thread and the future returned complete.
   */
  default CompletableFuture<SessionInfo> keepAliveAsync(SessionId sessionId) {
    try {
      return CompletableFuture.completedFuture(keepAlive(sessionId));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Ends a session and releases every lock attached to it in one action. Closing a session that
   * does not exist is a no-op, so a retried close is harmless.
   */
  void closeSession(SessionId sessionId);

  /**
   * Acquires {@code key} for {@code sessionId}, waiting up to {@code wait} for it to become free
   * (zero: try once). Waiting must not poll the store in a tight loop.
   *
   * @throws dev.fencepost.lock.LockNotAcquiredException if still held by another at the deadline
   * @throws dev.fencepost.lock.SessionNotFoundException if the session does not exist or expired
   */
  LockGrant acquire(LockKey key, SessionId sessionId, Duration wait);

  /**
   * Confirms that (key, session, token) is still the valid grant and extends its lease (the
   * session's) by the TTL. Token unchanged.
   *
   * @throws dev.fencepost.lock.LockLostException if that grant is no longer valid
   */
  LockGrant renew(LockKey key, SessionId sessionId, FencingToken token);

  /**
   * Compare-and-delete: frees {@code key} only if (session, token) is its current grant.
   *
   * @throws dev.fencepost.lock.NotHolderException otherwise; nothing changes
   */
  void release(LockKey key, SessionId sessionId, FencingToken token);

  /** A point-in-time view for operators. Never a correctness input (FR-07). */
  LockInfo inspect(LockKey key);

  /**
   * Operator break-glass: frees {@code key} whoever holds it, guarantees the next token is higher
   * than the revoked one, and stores an audit entry with operator and reason (FR-08, FR-30).
   */
  RevokeResult revoke(LockKey key, String operator, String reason);

  /** Counts for gauges. May be approximate; never a correctness input. */
  BackendStats stats();

  /**
   * Session and lock counts.
   *
   * @param activeSessions sessions not yet expired or closed
   * @param heldLocks keys currently held by a live session
   */
  record BackendStats(long activeSessions, long heldLocks) {}
}
