package dev.fencepost.lockserver.backend.etcd;

import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The JSON stored in etcd values, readable with {@code etcdctl get}. Fields may be added later;
 * readers ignore fields they do not know, so a mixed-version fleet of lock servers keeps working.
 */
final class EtcdValues {

  private static final JsonMapper JSON =
      JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

  private EtcdValues() {}

  /**
   * The value of a lock key: who holds it. The token is not stored: it is the key's ModRevision.
   *
   * @param owner the holder's self-declared identity
   * @param sessionId the holder's session (its lease id in hex)
   * @param acquiredAt ISO-8601 instant by the granting lock server's clock; informational only
   */
  record Grant(String owner, String sessionId, String acquiredAt) {}

  /**
   * The value of a session key.
   *
   * @param owner the client's self-declared identity
   * @param ttlMillis the lease TTL etcd granted, in milliseconds
   * @param principal the authenticated caller that created it, or null (absent in records written
   *     before identities existed)
   */
  record Session(String owner, long ttlMillis, String principal) {}

  /**
   * One force-revoke, kept without a lease (FR-08, FR-30). Its own ModRevision is the revision of
   * the revoke; every later token for the key is higher than that.
   *
   * @param action always {@code REVOKE}
   * @param key the lock key
   * @param operator who revoked
   * @param reason why, as the operator recorded it
   * @param revokedToken the revoked grant's token, or null if the key was free
   * @param revokedOwner the revoked grant's owner, or null
   * @param revokedSessionId the revoked grant's session, or null
   * @param at ISO-8601 instant by the revoking lock server's clock
   */
  record Audit(
      String action,
      String key,
      String operator,
      String reason,
      Long revokedToken,
      String revokedOwner,
      String revokedSessionId,
      String at) {}

  static ByteSequence write(Object value) {
    return ByteSequence.from(JSON.writeValueAsBytes(value));
  }

  static <T> T read(ByteSequence bytes, Class<T> type) {
    return JSON.readValue(bytes.toString(StandardCharsets.UTF_8), type);
  }
}
