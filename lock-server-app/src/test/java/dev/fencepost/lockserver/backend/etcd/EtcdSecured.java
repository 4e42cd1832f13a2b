package dev.fencepost.lockserver.backend.etcd;

import dev.fencepost.launcher.etcd.EtcdCluster;
import dev.fencepost.launcher.etcd.EtcdCredentials;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The backend's settings for a secured etcd (TLS, client certificate, user and password; ADR 0158),
 * as the lock server binds them, with the production call timeout.
 */
final class EtcdSecured {

  /**
   * Longer than production's 3 s: a client's first call also makes the TLS handshake and fetches a
   * token (etcd checks the password with bcrypt), which on this shared 2-core machine under load
   * has taken longer. The tests are about who gets in, not how fast.
   */
  static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(10);

  private EtcdSecured() {}

  static EtcdBackendProperties properties(
      EtcdCluster cluster, String keyPrefix, EtcdCredentials credentials) {
    return properties(
        cluster,
        keyPrefix,
        new EtcdBackendProperties.Tls(
            credentials.caFile(), credentials.certificateFile(), credentials.keyFile(), null),
        credentials.user(),
        credentials.password());
  }

  static EtcdBackendProperties properties(
      EtcdCluster cluster,
      String keyPrefix,
      EtcdBackendProperties.Tls tls,
      String user,
      String password) {
    return new EtcdBackendProperties(
        List.of(cluster.endpoints().split(",")),
        keyPrefix,
        EtcdFailover.CALL_TIMEOUT,
        OPERATION_TIMEOUT,
        0L,
        tls,
        user,
        password);
  }

  /** The same CA and files, without the client certificate. */
  static EtcdBackendProperties.Tls withoutClientCertificate(EtcdCredentials credentials) {
    return new EtcdBackendProperties.Tls(credentials.caFile(), null, null, null);
  }

  /** The client certificate, trusting {@code ca} instead of the cluster's CA. */
  static EtcdBackendProperties.Tls trusting(Path ca, EtcdCredentials credentials) {
    return new EtcdBackendProperties.Tls(
        ca, credentials.certificateFile(), credentials.keyFile(), null);
  }

  /** The lock server's {@code fencepost.lock.etcd.*} settings for these credentials. */
  static Map<String, Object> springProperties(
      EtcdCluster cluster, String keyPrefix, EtcdCredentials credentials) {
    Map<String, Object> properties = new HashMap<>();
    properties.put("fencepost.lock.backend", "etcd");
    properties.put("fencepost.lock.etcd.endpoints", cluster.endpoints());
    properties.put("fencepost.lock.etcd.key-prefix", keyPrefix);
    properties.put("fencepost.lock.etcd.operation-timeout", OPERATION_TIMEOUT.toMillis() + "ms");
    properties.put("fencepost.lock.etcd.tls.ca-file", credentials.caFile());
    properties.put("fencepost.lock.etcd.tls.certificate-file", credentials.certificateFile());
    properties.put("fencepost.lock.etcd.tls.key-file", credentials.keyFile());
    properties.put("fencepost.lock.etcd.user", credentials.user());
    properties.put("fencepost.lock.etcd.password", credentials.password());
    return properties;
  }

  /** {@link #springProperties} as {@code --name=value} arguments. */
  static String[] args(EtcdCluster cluster, String keyPrefix, EtcdCredentials credentials) {
    List<String> args = new ArrayList<>();
    springProperties(cluster, keyPrefix, credentials)
        .forEach(
            (name, value) -> {
              if (!name.equals("fencepost.lock.etcd.endpoints")
                  && !name.equals("fencepost.lock.etcd.key-prefix")
                  && !name.equals("fencepost.lock.backend")) {
                args.add("--" + name + "=" + value);
              }
            });
    return args.toArray(String[]::new);
  }
}
