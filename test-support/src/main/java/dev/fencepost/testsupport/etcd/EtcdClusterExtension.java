package dev.fencepost.testsupport.etcd;

import dev.fencepost.launcher.etcd.EtcdCluster;
import dev.fencepost.launcher.etcd.EtcdCredentials;
import java.time.Duration;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Gives a test class a real etcd cluster of its own, started before its first test and killed (data
 * directories deleted) after its last. Register it as a static field:
 *
 * <pre>{@code
 * @RegisterExtension static EtcdClusterExtension etcd = EtcdClusterExtension.singleMember();
 * ...
 * etcd.endpoints(); // "http://127.0.0.1:41234"
 * }</pre>
 *
 * The secured variant ({@link #securedSingleMember(String)}, ADR 0158) runs etcd with TLS on its
 * client and peer ports, client certificates required, and authentication on; the lock server's
 * user may read and write under the given key prefix only:
 *
 * <pre>{@code
 * @RegisterExtension
 * static EtcdClusterExtension etcd = EtcdClusterExtension.securedSingleMember("/contract/");
 * ...
 * etcd.endpoints(); // "https://127.0.0.1:41234"
 * etcd.lockServerCredentials(); // CA, client certificate and key, user and password
 * }</pre>
 *
 * When {@code etcd} is not installed the class fails (never skips) with a message naming {@code
 * apt-get install -y etcd-server}.
 */
public final class EtcdClusterExtension implements BeforeAllCallback, AfterAllCallback {

  private final int members;
  private final Duration electionTimeout;
  private final Duration heartbeatInterval;
  private final String securedKeyPrefix;
  private EtcdCluster cluster;

  private EtcdClusterExtension(
      int members, Duration heartbeatInterval, Duration electionTimeout, String securedKeyPrefix) {
    this.members = members;
    this.heartbeatInterval = heartbeatInterval;
    this.electionTimeout = electionTimeout;
    this.securedKeyPrefix = securedKeyPrefix;
  }

  /** One member: enough for the contract suites. */
  public static EtcdClusterExtension singleMember() {
    return new EtcdClusterExtension(1, Duration.ofMillis(100), Duration.ofMillis(1000), null);
  }

  /**
   * One member with TLS, client certificates and authentication; the lock server's user may read
   * and write under {@code lockServerKeyPrefix} only.
   */
  public static EtcdClusterExtension securedSingleMember(String lockServerKeyPrefix) {
    return new EtcdClusterExtension(
        1, Duration.ofMillis(100), Duration.ofMillis(1000), lockServerKeyPrefix);
  }

  /** Three members secured as {@link #securedSingleMember(String)}, peer traffic over TLS too. */
  public static EtcdClusterExtension securedThreeMembers(String lockServerKeyPrefix) {
    return new EtcdClusterExtension(
        3, Duration.ofMillis(100), Duration.ofMillis(1000), lockServerKeyPrefix);
  }

  /** Three members: a cluster that survives losing its leader. */
  public static EtcdClusterExtension threeMembers() {
    return new EtcdClusterExtension(3, Duration.ofMillis(100), Duration.ofMillis(1000), null);
  }

  /** The same cluster with other raft timings (they also set etcd's minimum lease TTL). */
  public EtcdClusterExtension withTimings(Duration heartbeatInterval, Duration electionTimeout) {
    return new EtcdClusterExtension(members, heartbeatInterval, electionTimeout, securedKeyPrefix);
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    if (cluster == null) {
      EtcdCluster.Builder builder =
          EtcdCluster.builder()
              .members(members)
              .heartbeatInterval(heartbeatInterval)
              .electionTimeout(electionTimeout);
      if (securedKeyPrefix != null) {
        builder.authentication(securedKeyPrefix);
      }
      cluster = builder.start();
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (cluster != null) {
      cluster.close();
      cluster = null;
    }
  }

  public EtcdCluster cluster() {
    if (cluster == null) {
      throw new IllegalStateException(
          "EtcdClusterExtension is used before beforeAll: register it as a static field");
    }
    return cluster;
  }

  /** The lock server's credentials of a secured cluster (see {@link #securedSingleMember}). */
  public EtcdCredentials lockServerCredentials() {
    return cluster().lockServerCredentials();
  }

  /** Comma-separated client URLs of every member. */
  public String endpoints() {
    return cluster().endpoints();
  }
}
