package dev.fencepost.lock;

import java.time.Instant;

/**
 * What inspection reports about a key: holder, token, times and waiter count (FR-07).
 *
 * <p><b>Never use this for a correctness decision.</b> By the time a caller reads it, it may be
 * false: the holder may have lost its lease, or another may hold the key. It exists for operators
 * deciding whether to force-revoke (UC-06). Fields other than {@code key}, {@code held} and {@code
 * waiters} are null when the key is free.
 *
 * @param key the lock
 * @param held whether the backend considered the key held at the moment of the read
 * @param owner the holder's identity, or null
 * @param sessionId the holder's session, or null
 * @param token the holder's fencing token, or null
 * @param acquiredAt when the holder acquired it, or null
 * @param expiresAt when the holder's lease expires unless renewed, or null
 * @param waiters how many acquire calls were waiting for the key at the moment of the read
 */
public record LockInfo(
    LockKey key,
    boolean held,
    String owner,
    SessionId sessionId,
    FencingToken token,
    Instant acquiredAt,
    Instant expiresAt,
    int waiters) {

  public static LockInfo free(LockKey key, int waiters) {
    return new LockInfo(key, false, null, null, null, null, null, waiters);
  }
}
