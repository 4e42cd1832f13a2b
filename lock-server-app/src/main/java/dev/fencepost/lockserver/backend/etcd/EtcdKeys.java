package dev.fencepost.lockserver.backend.etcd;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.SessionId;
import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The etcd key layout, all under one configurable prefix (default {@code /fencepost/}):
 *
 * <pre>
 * {prefix}locks/{lockKey}                 the grant: JSON {owner, sessionId, acquiredAt}, on the
 *                                         holder's lease; its ModRevision is the token (ADR 0011)
 * {prefix}sessions/{leaseIdHex}           the session: JSON {owner, ttlMillis}, on its own lease
 * {prefix}waiters/{lockKey}/{uuid}        one waiting acquire, on the waiter's lease
 * {prefix}audit/{lockKey}/{token, 20 digits}   a force-revoke of a held key (no lease: kept)
 * {prefix}audit/{lockKey}/free-{uuid}     a force-revoke of a free key (no lease: kept)
 * {prefix}revision-floor                  scratch key written to advance the revision after a
 *                                         restore (ADR 0016)
 * </pre>
 *
 * Lock keys match {@code [A-Za-z0-9:._-]+}, so they never contain {@code /} and a prefix range over
 * {@code waiters/{lockKey}/} or {@code audit/{lockKey}/} covers exactly that key.
 */
final class EtcdKeys {

  private static final Pattern LEASE_HEX = Pattern.compile("[0-9a-f]{1,16}");

  private final String prefix;

  EtcdKeys(String prefix) {
    if (prefix == null || prefix.isEmpty()) {
      throw new IllegalArgumentException("the etcd key prefix must not be empty");
    }
    this.prefix = prefix.endsWith("/") ? prefix : prefix + "/";
  }

  String prefix() {
    return prefix;
  }

  ByteSequence lock(LockKey key) {
    return bytes(prefix + "locks/" + key.value());
  }

  ByteSequence locks() {
    return bytes(prefix + "locks/");
  }

  ByteSequence session(long leaseId) {
    return bytes(prefix + "sessions/" + sessionId(leaseId).value());
  }

  ByteSequence sessions() {
    return bytes(prefix + "sessions/");
  }

  ByteSequence waiter(LockKey key, UUID waiter) {
    return bytes(prefix + "waiters/" + key.value() + "/" + waiter);
  }

  ByteSequence waiters(LockKey key) {
    return bytes(prefix + "waiters/" + key.value() + "/");
  }

  ByteSequence revokedGrant(LockKey key, FencingToken token) {
    return bytes(prefix + "audit/" + key.value() + "/" + String.format("%020d", token.value()));
  }

  ByteSequence revokedFreeKey(LockKey key, UUID id) {
    return bytes(prefix + "audit/" + key.value() + "/free-" + id);
  }

  ByteSequence revisionFloor() {
    return bytes(prefix + "revision-floor");
  }

  ByteSequence audits() {
    return bytes(prefix + "audit/");
  }

  /** A session is its lease; its id is the lease id in lowercase hex, as etcdctl prints it. */
  static SessionId sessionId(long leaseId) {
    return SessionId.of(Long.toHexString(leaseId));
  }

  /** The lease behind a session id, or empty for anything this backend never issued. */
  static Optional<Long> leaseId(SessionId sessionId) {
    String value = sessionId.value();
    if (!LEASE_HEX.matcher(value).matches()) {
      return Optional.empty();
    }
    long id = Long.parseUnsignedLong(value, 16);
    return id == 0 ? Optional.empty() : Optional.of(id);
  }

  static ByteSequence bytes(String value) {
    return ByteSequence.from(value, StandardCharsets.UTF_8);
  }
}
