package dev.fencepost.launcher.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

class EtcdClusterTest {

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  @Test
  void aSingleMemberServesOnLoopbackAndLeadsItself() throws Exception {
    try (EtcdCluster cluster = EtcdCluster.single();
        Client client = Client.builder().endpoints(cluster.endpoints().split(",")).build()) {
      assertThat(cluster.endpoints()).matches("http://127\\.0\\.0\\.1:\\d+");
      assertThat(cluster.awaitLeader()).isSameAs(cluster.member(0));
      client.getKVClient().put(bytes("k"), bytes("v")).get(10, TimeUnit.SECONDS);
      assertThat(client.getKVClient().get(bytes("k")).get(10, TimeUnit.SECONDS).getCount())
          .isEqualTo(1);
    }
  }

  @Test
  void closingKillsTheProcessesAndDeletesTheDataDirectories() {
    EtcdCluster cluster = EtcdCluster.single();
    EtcdMember member = cluster.member(0);
    long pid = member.pid().orElseThrow();
    Path dataDirectory = member.dataDirectory();
    assertThat(dataDirectory).isDirectory();

    cluster.close();

    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(Boolean.TRUE);
    assertThat(member.isRunning()).isFalse();
    assertThat(dataDirectory).doesNotExist();
    assertThat(dataDirectory.getParent()).doesNotExist();
  }

  @Test
  void theMinimumLeaseTtlFollowsTheElectionTimeoutAsEtcdComputesIt() throws Exception {
    try (EtcdCluster cluster = EtcdCluster.single();
        Client client = Client.builder().endpoints(cluster.endpoints()).build()) {
      long granted = client.getLeaseClient().grant(1).get(10, TimeUnit.SECONDS).getTTL();
      assertThat(Duration.ofSeconds(granted)).isEqualTo(cluster.minimumLeaseTtl());
      assertThat(cluster.minimumLeaseTtl()).isEqualTo(Duration.ofSeconds(2));
    }
  }

  @Test
  void aRestoredDataDirectoryRewindsTheMemberToItsBackup(@TempDir Path backup) throws Exception {
    try (EtcdCluster cluster = EtcdCluster.single()) {
      EtcdMember member = cluster.member(0);
      long backedUpRevision;
      try (Client client = Client.builder().endpoints(cluster.endpoints()).build()) {
        backedUpRevision =
            client
                .getKVClient()
                .put(bytes("k"), bytes("v1"))
                .get(10, TimeUnit.SECONDS)
                .getHeader()
                .getRevision();
      }
      member.kill();
      member.copyDataDirectoryTo(backup.resolve("copy"));
      member.restart();
      try (Client client = Client.builder().endpoints(cluster.endpoints()).build()) {
        client.getKVClient().put(bytes("k"), bytes("v2")).get(10, TimeUnit.SECONDS);
      }

      member.kill();
      member.restoreDataDirectoryFrom(backup.resolve("copy"));
      member.restart();

      try (Client client = Client.builder().endpoints(cluster.endpoints()).build()) {
        var read = client.getKVClient().get(bytes("k")).get(10, TimeUnit.SECONDS);
        assertThat(read.getKvs().get(0).getValue().toString(StandardCharsets.UTF_8))
            .isEqualTo("v1");
        assertThat(read.getHeader().getRevision()).isEqualTo(backedUpRevision);
      }
    }
  }

  @Test
  void aRunningMembersDataDirectoryCannotBeCopiedOrReplaced(@TempDir Path backup) {
    try (EtcdCluster cluster = EtcdCluster.single()) {
      assertThatThrownBy(() -> cluster.member(0).copyDataDirectoryTo(backup))
          .isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(() -> cluster.member(0).restoreDataDirectoryFrom(backup))
          .isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void aMissingBinaryFailsWithTheInstallCommand(@TempDir Path empty) {
    assertThatThrownBy(() -> EtcdBinary.locate(Map.of("PATH", empty.toString())::get))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("apt-get install -y etcd-server");
    assertThatThrownBy(
            () -> EtcdBinary.locate(Map.of("ETCD_BIN", empty.resolve("etcd").toString())::get))
        .hasMessageContaining("ETCD_BIN")
        .hasMessageContaining("apt-get install -y etcd-server");
  }

  @Test
  void etcdBinOverridesThePath(@TempDir Path directory) throws Exception {
    Path fake = Files.createFile(directory.resolve("my-etcd"));
    assertThat(fake.toFile().setExecutable(true)).isTrue();
    assertThat(EtcdBinary.locate(Map.of("ETCD_BIN", fake.toString(), "PATH", "")::get))
        .isEqualTo(fake);
  }

  /** One three-member cluster shared by the fault tests below, which leave it whole again. */
  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class ThreeMembers {

    private EtcdCluster cluster;
    private Client client;

    @BeforeAll
    void start() {
      cluster = EtcdCluster.builder().members(3).start();
      client = Client.builder().endpoints(cluster.endpoints().split(",")).build();
    }

    @AfterAll
    void stop() {
      client.close();
      cluster.close();
    }

    @Test
    void endpointsNameEveryMemberAndExactlyOneLeads() {
      assertThat(cluster.endpoints().split(",")).hasSize(3);
      EtcdMember leader = cluster.awaitLeader();
      long leaders =
          cluster.members().stream()
              .map(cluster::status)
              .filter(s -> s.orElseThrow().getLeader() == s.get().getHeader().getMemberId())
              .count();
      assertThat(leaders).isEqualTo(1);
      assertThat(cluster.members()).contains(leader);
    }

    @Test
    void aKilledLeaderIsReplacedAndRejoinsWithItsDataAfterRestart() throws Exception {
      client.getKVClient().put(bytes("before-kill"), bytes("kept")).get(10, TimeUnit.SECONDS);
      EtcdMember leader = cluster.awaitLeader();
      long oldPid = leader.pid().orElseThrow();
      int clientPort = leader.clientPort();

      leader.kill();

      assertThat(leader.isRunning()).isFalse();
      assertThat(ProcessHandle.of(oldPid).map(ProcessHandle::isAlive)).isNotEqualTo(Boolean.TRUE);
      EtcdMember next = cluster.awaitNewLeader(leader, Duration.ofSeconds(15));
      assertThat(next).isNotSameAs(leader);

      leader.restart();

      assertThat(leader.isRunning()).isTrue();
      assertThat(leader.clientPort()).isEqualTo(clientPort);
      assertThat(leader.starts()).isEqualTo(2);
      try (Client direct = Client.builder().endpoints(leader.clientUrl()).build()) {
        assertThat(
                direct
                    .getKVClient()
                    .get(bytes("before-kill"))
                    .get(10, TimeUnit.SECONDS)
                    .getKvs()
                    .get(0)
                    .getValue()
                    .toString(StandardCharsets.UTF_8))
            .isEqualTo("kept");
      }
    }

    @Test
    void aPausedLeaderIsDeposedAndFollowsAfterItResumes() {
      EtcdMember leader = cluster.awaitLeader();

      leader.pause();
      try {
        assertThat(leader.isPaused()).isTrue();
        EtcdMember next = cluster.awaitNewLeader(leader, Duration.ofSeconds(15));
        assertThat(next).isNotSameAs(leader);
      } finally {
        leader.resume();
      }

      assertThat(leader.isPaused()).isFalse();
      cluster.awaitFollowing(leader, Duration.ofSeconds(15));
    }
  }
}
