package dev.fencepost.lockserver.backend.etcd;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.SessionId;
import io.etcd.jetcd.ByteSequence;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lock-key values of grants this lock server saw succeed, by key and token, so that their
 * release is one compare-and-delete transaction instead of a read and then one (ADR 0227).
 *
 * <p>Why the value is enough: a lock key's value names the holder's session, and only an acquire
 * for that session writes it, on that session's lease. A release that compares the key's
 * ModRevision with the token and its value with the value written for the caller's session
 * therefore checks, inside etcd, the same (key, session, token) that a read of the key's lease
 * would, and in the same revision as the delete.
 *
 * <p>Never a correctness input on its own: an entry only chooses which transaction is sent, and
 * etcd's compare decides. An entry for another session, or none, sends the release the long way
 * (read, then compare-and-delete). Bounded: when full it is cleared, and releases of the grants it
 * forgot take the long way.
 */
final class KnownGrants {

  /**
   * As many as {@link KnownSessions} holds sessions; about 400 bytes per entry (406 B per held lock
   * measured).
   */
  static final int MAX_ENTRIES = 100_000;

  /**
   * What was written for one grant.
   *
   * @param sessionId the session the grant belongs to
   * @param value the lock key's value, byte for byte as etcd stores it
   */
  record Written(SessionId sessionId, ByteSequence value) {}

  private record Grant(String key, long token) {}

  private final ConcurrentHashMap<Grant, Written> byGrant = new ConcurrentHashMap<>();

  /** A grant of {@code key} at {@code token} to {@code sessionId}, with the value it stored. */
  void remember(LockKey key, FencingToken token, SessionId sessionId, ByteSequence value) {
    if (byGrant.size() >= MAX_ENTRIES) {
      byGrant.clear();
    }
    byGrant.put(new Grant(key.value(), token.value()), new Written(sessionId, value));
  }

  /** What was written for the grant if this server remembers it, else null. */
  Written get(LockKey key, FencingToken token) {
    return byGrant.get(new Grant(key.value(), token.value()));
  }

  /** The grant ended (released, revoked) or is no longer the key's. */
  void forget(LockKey key, FencingToken token) {
    byGrant.remove(new Grant(key.value(), token.value()));
  }

  int size() {
    return byGrant.size();
  }
}
