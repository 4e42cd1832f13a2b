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
 */
@ConfigurationProperties("fencepost.lock")
public record LockServerProperties(
    Backend backend,
    Duration minTtl,
    Duration maxTtl,
    Duration maxWait,
    DataSize maxBodySize,
    Integer maxTextLength) {

  public LockServerProperties {
    backend = backend == null ? Backend.POSTGRES : backend;
    minTtl = minTtl == null ? Duration.ofMillis(500) : minTtl;
    maxTtl = maxTtl == null ? Duration.ofMinutes(10) : maxTtl;
    maxWait = maxWait == null ? Duration.ofSeconds(60) : maxWait;
    maxBodySize = maxBodySize == null ? DataSize.ofKilobytes(16) : maxBodySize;
    maxTextLength = maxTextLength == null ? 200 : maxTextLength;
  }

  /** The lock backends. */
  public enum Backend {
    POSTGRES,
    ETCD
  }
}
