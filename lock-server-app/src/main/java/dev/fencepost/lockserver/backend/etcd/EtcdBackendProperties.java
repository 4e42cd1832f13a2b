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
 * @param callTimeout the bound on each backend operation's etcd calls (also the gRPC deadline of
 *     every call); a transient failure is retried within it, then answered with 503 so clients fail
 *     closed (UC-08). Keep it above one election timeout so that one election costs a retry, not an
 *     error.
 */
@ConfigurationProperties("fencepost.lock.etcd")
public record EtcdBackendProperties(
    List<String> endpoints, String keyPrefix, Duration callTimeout) {

  public EtcdBackendProperties {
    endpoints =
        endpoints == null || endpoints.isEmpty()
            ? List.of("http://127.0.0.1:2379")
            : List.copyOf(endpoints);
    keyPrefix = keyPrefix == null || keyPrefix.isBlank() ? "/fencepost/" : keyPrefix;
    callTimeout = callTimeout == null ? Duration.ofSeconds(3) : callTimeout;
  }
}
