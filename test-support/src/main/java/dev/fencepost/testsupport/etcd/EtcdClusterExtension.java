package dev.fencepost.testsupport.etcd;

import dev.fencepost.launcher.etcd.EtcdCluster;
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
 * When {@code etcd} is not installed the class fails (never skips) with a message naming {@code
 * apt-get install -y etcd-server}.
 */
public final class EtcdClusterExtension implements BeforeAllCallback, AfterAllCallback {

  private final int members;
  private final Duration electionTimeout;
  private final Duration heartbeatInterval;
  private EtcdCluster cluster;

  private EtcdClusterExtension(int members, Duration heartbeatInterval, Duration electionTimeout) {
    this.members = members;
    this.heartbeatInterval = heartbeatInterval;
    this.electionTimeout = electionTimeout;
  }

  /** One member: enough for the contract suites. */
  public static EtcdClusterExtension singleMember() {
    return new EtcdClusterExtension(1, Duration.ofMillis(100), Duration.ofMillis(1000));
  }

  /** Three members: a cluster that survives losing its leader. */
  public static EtcdClusterExtension threeMembers() {
    return new EtcdClusterExtension(3, Duration.ofMillis(100), Duration.ofMillis(1000));
  }

  /** The same cluster with other raft timings (they also set etcd's minimum lease TTL). */
  public EtcdClusterExtension withTimings(Duration heartbeatInterval, Duration electionTimeout) {
    return new EtcdClusterExtension(members, heartbeatInterval, electionTimeout);
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    if (cluster == null) {
      cluster =
          EtcdCluster.builder()
              .members(members)
              .heartbeatInterval(heartbeatInterval)
              .electionTimeout(electionTimeout)
              .start();
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

  /** Comma-separated client URLs of every member. */
  public String endpoints() {
    return cluster().endpoints();
  }
}
