package dev.fencepost.lockserver.backend.etcd;

import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * etcd backend settings, under {@code fencepost.lock.etcd}; used when {@code
 * fencepost.lock.backend=etcd}.
 *
 * @param endpoints the client URLs of the etcd members, e.g. {@code
 *     http://etcd-0:2379,http://etcd-1:2379,http://etcd-2:2379}; list every member so the client
 *     can fail over when one is down (NFR-02)
 * @param keyPrefix the etcd key prefix under which sessions, locks, waiters and audit records live;
 *     lock servers that share a prefix are one lock service
 * @param callTimeout the gRPC deadline of each etcd call (default 500 ms). A call that reached a
 *     follower just as the leader died is never answered and ends only by this deadline, after
 *     which it is retried against the new leader; so an election costs up to one call timeout on
 *     top of the election itself. Keep it short, yet well above a healthy call's latency (a few
 *     milliseconds); see docs/decisions/0012
 * @param operationTimeout the bound on one backend operation, retries included; after it the lock
 *     server answers 503 and clients fail closed (UC-08). Default 3 s: above an election (NFR-02),
 *     so that an election costs retries, not an error
 * @param revisionFloor after restoring etcd from a backup: the highest fencing token either guard
 *     has seen (the larger of paydb's highest account fence and the rail proxy's highest
 *     high-water). At start the lock server writes until etcd's revision exceeds it, before it
 *     serves, so no token is issued twice (INV-04, ADR 0016). Unset or 0: nothing to do
 */
@ConfigurationProperties("fencepost.lock.etcd")
public record EtcdBackendProperties(
    List<String> endpoints,
    String keyPrefix,
    Duration callTimeout,
    Duration operationTimeout,
    Long revisionFloor) {

  public EtcdBackendProperties {
    endpoints =
        endpoints == null || endpoints.isEmpty()
            ? List.of("http://127.0.0.1:2379")
            : List.copyOf(endpoints);
    keyPrefix = keyPrefix == null || keyPrefix.isBlank() ? "/fencepost/" : keyPrefix;
    callTimeout = callTimeout == null ? Duration.ofMillis(500) : callTimeout;
    operationTimeout = operationTimeout == null ? Duration.ofSeconds(3) : operationTimeout;
    revisionFloor = revisionFloor == null ? 0L : revisionFloor;
    if (revisionFloor < 0) {
      throw new IllegalArgumentException("fencepost.lock.etcd.revision-floor must not be negative");
    }
    if (operationTimeout.compareTo(callTimeout) < 0) {
      throw new IllegalArgumentException(
          "fencepost.lock.etcd.operation-timeout must be at least the call-timeout");
    }
  }
}
