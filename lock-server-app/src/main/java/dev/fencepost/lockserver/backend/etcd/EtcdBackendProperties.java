package dev.fencepost.lockserver.backend.etcd;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * etcd backend settings, under {@code fencepost.lock.etcd}; used when {@code
 * fencepost.lock.backend=etcd}.
 *
 * @param endpoints the client URLs of the etcd members, e.g. {@code
 *     http://etcd-0:2379,http://etcd-1:2379,http://etcd-2:2379}; list every member so the client
 *     can fail over when one is down (NFR-02). All {@code http://} (plaintext) or all {@code
 *     https://} (TLS, which needs {@code tls.ca-file}); a mix is refused at start
 * @param keyPrefix the etcd key prefix under which sessions, locks, waiters and audit records live;
 *     lock servers that share a prefix are one lock service. With etcd authentication, the lock
 *     server's role needs read and write on exactly this prefix (ADR 0158)
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
 * @param tls TLS to etcd: the CA to trust and the client certificate to present; used when the
 *     endpoints are {@code https://} (ADR 0158)
 * @param user the etcd user the lock server authenticates as (etcd's authentication enabled); unset
 *     or blank: no user, requests carry no token. Needs {@code password}
 * @param password the etcd user's password; from the environment ({@code
 *     FENCEPOST_LOCK_ETCD_PASSWORD}) or a mounted secret at run time, never from shipped
 *     configuration. Unset or blank without a user; required with one
 * @param leaderPoll how often the lock server reads etcd's raft term to count leader elections
 *     ({@code fencepost.lock.etcd.leader.changes}, NFR-02, ADR 0175): one count-only read of one
 *     key per interval. Default 5 s; at least 1 s
 */
@ConfigurationProperties("fencepost.lock.etcd")
public record EtcdBackendProperties(
    List<String> endpoints,
    String keyPrefix,
    Duration callTimeout,
    Duration operationTimeout,
    Long revisionFloor,
    @DefaultValue Tls tls,
    String user,
    String password,
    Duration leaderPoll) {

  @ConstructorBinding
  public EtcdBackendProperties {
    endpoints =
        endpoints == null || endpoints.isEmpty()
            ? List.of("http://127.0.0.1:2379")
            : List.copyOf(endpoints);
    keyPrefix = keyPrefix == null || keyPrefix.isBlank() ? "/fencepost/" : keyPrefix;
    callTimeout = callTimeout == null ? Duration.ofMillis(500) : callTimeout;
    operationTimeout = operationTimeout == null ? Duration.ofSeconds(3) : operationTimeout;
    revisionFloor = revisionFloor == null ? 0L : revisionFloor;
    tls = tls == null ? new Tls(null, null, null, null) : tls;
    user = user == null || user.isBlank() ? null : user;
    password = password == null || password.isEmpty() ? null : password;
    leaderPoll = leaderPoll == null ? Duration.ofSeconds(5) : leaderPoll;
    if (leaderPoll.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException("fencepost.lock.etcd.leader-poll must be at least 1s");
    }
    if (revisionFloor < 0) {
      throw new IllegalArgumentException("fencepost.lock.etcd.revision-floor must not be negative");
    }
    if (operationTimeout.compareTo(callTimeout) < 0) {
      throw new IllegalArgumentException(
          "fencepost.lock.etcd.operation-timeout must be at least the call-timeout");
    }
    boolean https = requireOneScheme(endpoints);
    if (https && tls.caFile() == null) {
      throw new IllegalArgumentException(
          "fencepost.lock.etcd.endpoints are https:// but fencepost.lock.etcd.tls.ca-file is not"
              + " set: name the CA that signed etcd's certificates");
    }
    if (!https && tls.isConfigured()) {
      throw new IllegalArgumentException(
          "fencepost.lock.etcd.tls.* is set but the endpoints are http://: use https:// endpoints"
              + " so that the connection to etcd is encrypted");
    }
    if (user != null && password == null) {
      throw new IllegalArgumentException(
          "fencepost.lock.etcd.user is set but fencepost.lock.etcd.password is not: supply it at"
              + " run time (FENCEPOST_LOCK_ETCD_PASSWORD)");
    }
    if (user == null && password != null) {
      throw new IllegalArgumentException(
          "fencepost.lock.etcd.password is set but fencepost.lock.etcd.user is not");
    }
  }

  /** With the default leader poll. */
  public EtcdBackendProperties(
      List<String> endpoints,
      String keyPrefix,
      Duration callTimeout,
      Duration operationTimeout,
      Long revisionFloor,
      Tls tls,
      String user,
      String password) {
    this(
        endpoints,
        keyPrefix,
        callTimeout,
        operationTimeout,
        revisionFloor,
        tls,
        user,
        password,
        null);
  }

  /** The plaintext defaults, the backend's behaviour before TLS and authentication existed. */
  public EtcdBackendProperties(
      List<String> endpoints,
      String keyPrefix,
      Duration callTimeout,
      Duration operationTimeout,
      Long revisionFloor) {
    this(endpoints, keyPrefix, callTimeout, operationTimeout, revisionFloor, null, null, null);
  }

  /** True when the endpoints are {@code https://}. */
  public boolean usesTls() {
    return endpoints.get(0).toLowerCase(Locale.ROOT).startsWith("https://");
  }

  private static boolean requireOneScheme(List<String> endpoints) {
    long https = 0;
    for (String endpoint : endpoints) {
      String scheme = scheme(endpoint);
      if (scheme.equals("https")) {
        https++;
      } else if (!scheme.equals("http")) {
        throw new IllegalArgumentException(
            "fencepost.lock.etcd.endpoints: " + endpoint + " is neither http:// nor https://");
      }
    }
    if (https != 0 && https != endpoints.size()) {
      throw new IllegalArgumentException(
          "fencepost.lock.etcd.endpoints mix http:// and https://: " + endpoints);
    }
    return https != 0;
  }

  private static String scheme(String endpoint) {
    try {
      String scheme = URI.create(endpoint.trim()).getScheme();
      return scheme == null ? "" : scheme.toLowerCase(Locale.ROOT);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "fencepost.lock.etcd.endpoints: " + endpoint + " is not a URL", e);
    }
  }

  /**
   * TLS to etcd, under {@code fencepost.lock.etcd.tls}. Files are read once, when the lock server
   * starts; a renewed certificate takes a restart (a rolling one keeps the service up).
   *
   * @param caFile PEM file of the CA (or CAs) that signed etcd's server certificates; required with
   *     {@code https://} endpoints. Only these CAs are trusted for etcd, not the JDK's
   * @param certificateFile PEM file of the client certificate (then its chain) the lock server
   *     presents, for etcd's {@code --client-cert-auth}; with {@code key-file}, or neither
   * @param keyFile PEM file of that certificate's private key (PKCS#8), readable by the lock
   *     server's user only
   * @param authority the host name to verify etcd's certificate against instead of each endpoint's
   *     host (gRPC's authority override), for certificates issued to a service name that the
   *     endpoints do not use; unset: each endpoint's host
   */
  public record Tls(Path caFile, Path certificateFile, Path keyFile, String authority) {

    public Tls {
      authority = authority == null || authority.isBlank() ? null : authority;
      if ((certificateFile == null) != (keyFile == null)) {
        throw new IllegalArgumentException(
            "fencepost.lock.etcd.tls.certificate-file and fencepost.lock.etcd.tls.key-file go"
                + " together: set both (a client certificate for etcd) or neither");
      }
    }

    boolean isConfigured() {
      return caFile != null || certificateFile != null || authority != null;
    }

    boolean hasClientCertificate() {
      return certificateFile != null;
    }
  }
}
