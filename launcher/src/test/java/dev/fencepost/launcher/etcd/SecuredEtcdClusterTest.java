package dev.fencepost.launcher.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SecuredEtcdClusterTest {

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  @Test
  void aSecuredClusterServesHttpsAndItsLockServerUserReadsAndWritesOnlyItsPrefix()
      throws Exception {
    try (EtcdCluster cluster = EtcdCluster.builder().authentication("/locks-here/").start();
        Client lockServer = cluster.lockServerCredentials().client(cluster.endpoints())) {
      assertThat(cluster.endpoints()).matches("https://127\\.0\\.0\\.1:\\d+");
      assertThat(cluster.isAuthenticationEnabled()).isTrue();

      lockServer.getKVClient().put(bytes("/locks-here/k"), bytes("v")).get(10, TimeUnit.SECONDS);
      assertThat(
              lockServer
                  .getKVClient()
                  .get(bytes("/locks-here/k"))
                  .get(10, TimeUnit.SECONDS)
                  .getCount())
          .isEqualTo(1);
      assertThatThrownBy(
              () ->
                  lockServer
                      .getKVClient()
                      .put(bytes("/elsewhere/k"), bytes("v"))
                      .get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasMessageContaining("permission denied");
    }
  }

  @Test
  void threeTlsMembersReplicateOverPeerTlsAndAKilledMemberRejoins() throws Exception {
    try (EtcdCluster cluster = EtcdCluster.builder().members(3).authentication("/p/").start();
        Client client = cluster.lockServerCredentials().client(cluster.endpoints())) {
      EtcdMember leader = cluster.awaitLeader();
      assertThat(leader.peerUrl()).startsWith("https://");
      leader.kill();
      cluster.awaitNewLeader(leader, Duration.ofSeconds(30));
      client.getKVClient().put(bytes("/p/after-kill"), bytes("v")).get(30, TimeUnit.SECONDS);
      leader.restart();
      cluster.awaitFollowing(leader, Duration.ofSeconds(30));
      try (Client direct = cluster.lockServerCredentials().client(leader.clientUrl())) {
        assertThat(
                direct
                    .getKVClient()
                    .get(bytes("/p/after-kill"))
                    .get(30, TimeUnit.SECONDS)
                    .getCount())
            .isEqualTo(1);
      }
    }
  }

  @Test
  void tlsWithoutAuthenticationHasNoLockServerUser() {
    try (EtcdCluster cluster = EtcdCluster.builder().tls().start()) {
      assertThat(cluster.isTls()).isTrue();
      assertThat(cluster.caFile()).isRegularFile();
      assertThatThrownBy(cluster::lockServerCredentials)
          .hasMessage("this cluster runs without authentication");
    }
  }
}
