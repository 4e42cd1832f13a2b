package dev.fencepost.lockserver.backend.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.launcher.etcd.EtcdMember;
import dev.fencepost.testsupport.etcd.EtcdClusterExtension;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The etcd backend survives what PostgreSQL never sees: its leader dying, again and again (NFR-02,
 * NFR-05, INV-04, INV-06).
 *
 * <p>8 clients on 5 keys acquire and release against a 3-member cluster whose leader is SIGKILLed
 * every 10 s (three elections in the test command, six in the long tier) and restarted on its own
 * data directory once another member leads. Every grant is recorded; none may overlap another of
 * its key, tokens must strictly increase per key, and the clients must keep being answered after
 * every election. What each election cost is printed (the NFR-02 measurement), bounded only by a
 * generous sanity limit.
 */
@Tag("NFR-02")
@Tag("NFR-05")
@Tag("INV-04")
@Tag("INV-06")
// The long tier (-Dexperiments.long=true -Plong-tier): a failover scenario of tens of seconds.
@Tag("long")
class EtcdLeaderKillTest {

  private static final Duration EVERY = Duration.ofSeconds(10);

  @RegisterExtension static EtcdClusterExtension etcd = EtcdClusterExtension.threeMembers();

  @Test
  void killingTheLeaderThreeTimesNeverBreaksMutualExclusionOrTokenOrder() throws Exception {
    killTheLeaderUnderLoad(3);
  }

  /** The long tier's run: six elections, as the chaos run on etcd also does. */
  @Test
  @Tag("long")
  void killingTheLeaderEveryTenSecondsNeverBreaksMutualExclusionOrTokenOrder() throws Exception {
    killTheLeaderUnderLoad(6);
  }

  private static void killTheLeaderUnderLoad(int elections) throws Exception {
    EtcdFailover.runUnderFaults(
        etcd.cluster(),
        "leader kill",
        "/leader-kill/",
        new EtcdFailover.Schedule(
            elections, EVERY, EVERY, EVERY.multipliedBy(elections).plusSeconds(5)),
        (scheduler, chaos) -> killAndRestartLeader());

    assertThat(etcd.cluster().members()).allMatch(EtcdMember::isRunning);
  }

  private static EtcdFailover.Fault killAndRestartLeader() {
    EtcdMember leader = etcd.cluster().awaitLeader(Duration.ofSeconds(20));
    long start = System.nanoTime();
    leader.kill();
    EtcdMember next = etcd.cluster().awaitNewLeader(leader, Duration.ofSeconds(20));
    long elected = System.nanoTime();
    leader.restart();
    return new EtcdFailover.Fault(
        "SIGKILL " + leader.name() + " (leader), restarted", start, elected, next.name());
  }
}
