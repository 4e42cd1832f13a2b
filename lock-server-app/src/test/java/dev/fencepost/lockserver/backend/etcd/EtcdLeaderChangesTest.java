package dev.fencepost.lockserver.backend.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.launcher.etcd.EtcdMember;
import dev.fencepost.testsupport.etcd.EtcdClusterExtension;
import io.etcd.jetcd.Client;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The lock server counts etcd's leader elections (NFR-02, ADR 0175) on a real three-member cluster:
 * nothing while the leader stays, one or more once the leader is killed and another is elected, and
 * the counter is exported under the name the alert rules use.
 */
@Tag("NFR-02")
class EtcdLeaderChangesTest {

  @RegisterExtension static EtcdClusterExtension etcd = EtcdClusterExtension.threeMembers();

  @Test
  void aKilledLeaderIsCountedAsAnElectionAndASteadyLeaderIsNot() {
    PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (Client client =
            EtcdClients.create(List.of(etcd.endpoints().split(",")), EtcdFailover.CALL_TIMEOUT);
        EtcdLeaderChanges changes =
            new EtcdLeaderChanges(
                client.getKVClient(), "/leader-changes/", EtcdFailover.CALL_TIMEOUT, meters)) {
      etcd.cluster().awaitLeader(Duration.ofSeconds(20));
      changes.poll();
      double term = meters.get("fencepost.lock.etcd.raft.term").gauge().value();
      assertThat(term).isPositive();
      changes.poll();
      changes.poll();
      assertThat(count(meters)).isZero();

      EtcdMember leader = etcd.cluster().awaitLeader(Duration.ofSeconds(20));
      leader.kill();
      try {
        etcd.cluster().awaitNewLeader(leader, Duration.ofSeconds(20));
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () -> {
                  changes.poll();
                  assertThat(count(meters)).isGreaterThanOrEqualTo(1.0);
                });
      } finally {
        leader.restart();
      }
      assertThat(meters.get("fencepost.lock.etcd.raft.term").gauge().value())
          .isEqualTo(term + count(meters));
      assertThat(meters.scrape())
          .contains("fencepost_lock_etcd_leader_changes_total ")
          .contains("fencepost_lock_etcd_raft_term ");
    }
  }

  private static double count(PrometheusMeterRegistry meters) {
    return meters.get("fencepost.lock.etcd.leader.changes").counter().count();
  }
}
