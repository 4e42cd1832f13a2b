package dev.fencepost.lockserver.backend.etcd;

import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What this lock server already knows about a session, so that an acquire or keepalive does not
 * read it back from etcd every time (ADR 0093): the owner, which never changes, and a lower bound
 * of the lease's expiry, taken from a grant or keepalive this server saw succeed (sent-time plus
 * the TTL etcd answered, so never later than etcd's own expiry).
 *
 * <p>Never a correctness input for who holds a key or which token it carries: etcd's transaction
 * still decides every grant, and checks in the same revision that the session record exists. A
 * stale entry can only make a grant report an earlier expiry than etcd's (a session kept alive
 * through another lock server), never a later one: a lease's expiry only moves forward until it is
 * revoked, and a revoked lease fails the grant's put. Bounded: when full, it is cleared and refills
 * from etcd reads.
 */
final class KnownSessions {

  /** Enough for the 10,000-session target several times over; ~150 bytes per entry. */
  static final int MAX_ENTRIES = 100_000;

  /**
   * @param owner the session's owner, as written in its record
   * @param expiresNoEarlierThan a lower bound of the lease's expiry
   */
  record Known(String owner, Instant expiresNoEarlierThan) {}

  private final ConcurrentHashMap<Long, Known> byLease = new ConcurrentHashMap<>();

  /** The session if known and its known expiry is still ahead of {@code now}; else null. */
  Known get(long leaseId, Instant now) {
    Known known = byLease.get(leaseId);
    return known != null && known.expiresNoEarlierThan().isAfter(now) ? known : null;
  }

  /** The owner if known, whatever its expiry; else null. */
  String owner(long leaseId) {
    Known known = byLease.get(leaseId);
    return known == null ? null : known.owner();
  }

  /** Records what a successful etcd call showed; a later lower bound replaces an earlier one. */
  void remember(long leaseId, String owner, Instant expiresNoEarlierThan) {
    if (byLease.size() >= MAX_ENTRIES) {
      byLease.clear();
    }
    byLease.merge(
        leaseId,
        new Known(owner, expiresNoEarlierThan),
        (old, fresh) ->
            fresh.expiresNoEarlierThan().isAfter(old.expiresNoEarlierThan()) ? fresh : old);
  }

  /** A keepalive of a session whose owner this server knows moved its expiry forward. */
  void extend(long leaseId, Instant expiresNoEarlierThan) {
    byLease.computeIfPresent(
        leaseId,
        (id, old) ->
            expiresNoEarlierThan.isAfter(old.expiresNoEarlierThan())
                ? new Known(old.owner(), expiresNoEarlierThan)
                : old);
  }

  /** The session ended (closed, expired, revoked): nothing about it may be reused. */
  void forget(long leaseId) {
    byLease.remove(leaseId);
  }

  int size() {
    return byLease.size();
  }
}
