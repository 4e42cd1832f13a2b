package dev.fencepost.lockserver.backend.postgres;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * PostgreSQL backend settings, under {@code fencepost.lock.postgres}. The database itself is chosen
 * with the standard {@code spring.datasource.*} properties.
 *
 * @param beaconInterval how often each instance proves it can reach lockdb; the grace step after an
 *     outage covers sessions alive at the last beacon of any instance
 * @param reapAfter how long an expired session is kept before housekeeping deletes it
 * @param instanceId this instance's name in {@code lock_server_beacon}; defaults to a random one
 * @param tokenFloor after a restore of lockdb from a backup: every token issued from now on is
 *     greater than this (set it to the highest fence either guard holds, decision 0003). Never
 *     lowers the sequence; unset in normal operation
 * @param migrate apply lockdb's changelog at start-up with the server's own connection; off by
 *     default, because migrations are their own step, run as lockdb's owner, and the server
 *     connects as the runtime role, which may not change the schema (ADR 0160)
 * @param keepaliveGather how long the first keepalive of a statement waits for others to share it
 *     (ADR 0188): the commits per keepalive fall to about one per window, and each keepalive's
 *     answer comes at most this much later. Keep it far below the shortest heartbeat interval; zero
 *     gives every lone keepalive its own statement at once
 */
@ConfigurationProperties("fencepost.lock.postgres")
public record PostgresBackendProperties(
    Duration beaconInterval,
    Duration reapAfter,
    String instanceId,
    Long tokenFloor,
    boolean migrate,
    Duration keepaliveGather) {

  /** Long enough to share a commit among ~20 keepalives at 2,000/s, short beside any TTL. */
  static final Duration DEFAULT_KEEPALIVE_GATHER = Duration.ofMillis(10);

  /** Longer would eat into a heartbeat's margin before its session's expiry. */
  static final Duration MAX_KEEPALIVE_GATHER = Duration.ofSeconds(1);

  public PostgresBackendProperties {
    beaconInterval = beaconInterval == null ? Duration.ofSeconds(1) : beaconInterval;
    reapAfter = reapAfter == null ? Duration.ofMinutes(5) : reapAfter;
    keepaliveGather = keepaliveGather == null ? DEFAULT_KEEPALIVE_GATHER : keepaliveGather;
    if (keepaliveGather.isNegative() || keepaliveGather.compareTo(MAX_KEEPALIVE_GATHER) > 0) {
      throw new IllegalArgumentException(
          "fencepost.lock.postgres.keepalive-gather must be between 0 and "
              + MAX_KEEPALIVE_GATHER.toMillis()
              + " ms, was "
              + keepaliveGather.toMillis()
              + " ms");
    }
  }
}
