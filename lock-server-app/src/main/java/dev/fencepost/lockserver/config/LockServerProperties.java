package dev.fencepost.lockserver.config;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Configuration of the lock server, under {@code fencepost.lock}.
 *
 * @param backend which store holds locks and mints tokens (FR-09): {@code postgres} (default) or
 *     {@code etcd}
 * @param minTtl the shortest session TTL a client may ask for; shorter requests get 400
 * @param maxTtl the longest session TTL a client may ask for; longer requests get 400
 * @param maxWait the longest a single acquire may wait for a held key; longer requests get 400
 * @param maxBodySize the largest request body accepted; larger bodies get 413 before parsing
 * @param maxTextLength the longest owner, operator or reason accepted
 * @param maxWaitingAcquires the most acquires with a {@code waitMillis} above 0 that one instance
 *     serves at once; beyond it an acquire that asks to wait gets 429 {@code
 *     TOO_MANY_WAITING_ACQUIRES} at once. A waiting acquire holds a Tomcat request thread for up to
 *     {@code maxWait}, so this is what keeps threads free for keepalives (ADR 0165)
 * @param maxWaitingAcquiresPerSession the most acquires one session may have waiting at once, so
 *     that one client cannot take the whole of {@code maxWaitingAcquires}
 * @param maxSessions the most live sessions in the backend; beyond it a session create gets 429
 *     {@code TOO_MANY_SESSIONS}. Concurrent creates on several instances may overshoot it by the
 *     number of creates in flight
 * @param reservedRequestThreads request threads that waiting acquires may never take: the server
 *     refuses to start unless {@code maxWaitingAcquires + reservedRequestThreads} is at most {@code
 *     server.tomcat.threads.max}
 * @param capacityRetryAfter the {@code Retry-After} of a 429: how long a refused client should wait
 *     before trying again
 * @param maxKeepaliveStreams the most keepalive streams (ADR 0224) this instance holds open at
 *     once; beyond it an upgrade gets 429 {@code TOO_MANY_KEEPALIVE_STREAMS} and the client sends
 *     its keepalives as requests. Each open stream holds about 100 KiB of heap and a connection, so
 *     this bounds what streams can take of the heap (2,000: about 200 MiB)
 */
@ConfigurationProperties("fencepost.lock")
public record LockServerProperties(
    Backend backend,
    Duration minTtl,
    Duration maxTtl,
    Duration maxWait,
    DataSize maxBodySize,
    Integer maxTextLength,
    Integer maxWaitingAcquires,
    Integer maxWaitingAcquiresPerSession,
    Long maxSessions,
    Integer reservedRequestThreads,
    Duration capacityRetryAfter,
    Integer maxKeepaliveStreams) {

  public LockServerProperties {
    backend = backend == null ? Backend.POSTGRES : backend;
    minTtl = minTtl == null ? Duration.ofMillis(500) : minTtl;
    maxTtl = maxTtl == null ? Duration.ofMinutes(10) : maxTtl;
    maxWait = maxWait == null ? Duration.ofSeconds(60) : maxWait;
    maxBodySize = maxBodySize == null ? DataSize.ofKilobytes(16) : maxBodySize;
    maxTextLength = maxTextLength == null ? 200 : maxTextLength;
    maxWaitingAcquires = maxWaitingAcquires == null ? 100 : maxWaitingAcquires;
    maxWaitingAcquiresPerSession =
        maxWaitingAcquiresPerSession == null ? 32 : maxWaitingAcquiresPerSession;
    maxSessions = maxSessions == null ? 10_000L : maxSessions;
    reservedRequestThreads = reservedRequestThreads == null ? 50 : reservedRequestThreads;
    capacityRetryAfter = capacityRetryAfter == null ? Duration.ofSeconds(1) : capacityRetryAfter;
    maxKeepaliveStreams = maxKeepaliveStreams == null ? 2_000 : maxKeepaliveStreams;
    if (maxKeepaliveStreams < 0) {
      throw new IllegalArgumentException(
          "fencepost.lock.max-keepalive-streams must be 0 (no streams) or more");
    }
    if (maxWaitingAcquires < 1 || maxWaitingAcquiresPerSession < 1 || maxSessions < 1) {
      throw new IllegalArgumentException(
          "fencepost.lock.max-waiting-acquires, max-waiting-acquires-per-session and max-sessions"
              + " must be at least 1");
    }
    if (reservedRequestThreads < 1) {
      throw new IllegalArgumentException(
          "fencepost.lock.reserved-request-threads must be at least 1");
    }
  }

  /** The lock backends. */
  public enum Backend {
    POSTGRES,
    ETCD
  }
}
