package dev.fencepost.lockserver.backend.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.launcher.etcd.EtcdMember;
import dev.fencepost.testsupport.etcd.EtcdClusterExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A leader that freezes (SIGSTOP: a long GC pause, a VM migration) past the election timeout is
 * deposed, and when it thaws (SIGCONT) believing it still leads, it cannot grant anything: it must
 * first hear the new term and step down (INV-06). Same clients, same checks as the kill test.
 */
@Tag("INV-06")
// The long tier (-Dexperiments.long=true -Plong-tier): a failover scenario of tens of seconds.
@Tag("long")
class EtcdLeaderPauseTest {

  private static final Duration EVERY = Duration.ofSeconds(8);
  private static final int PAUSES = 2;
  private static final Duration RUN = EVERY.multipliedBy(PAUSES).plusSeconds(5);

  @RegisterExtension static EtcdClusterExtension etcd = EtcdClusterExtension.threeMembers();

  @Test
  void aLeaderPausedPastTheElectionTimeoutIsDeposedAndGrantsNothingWhenItThaws() throws Exception {
    EtcdFailover.runUnderFaults(
        etcd.cluster(),
        "leader pause",
        "/leader-pause/",
        new EtcdFailover.Schedule(PAUSES, EVERY.minusSeconds(5), EVERY, RUN),
        EtcdLeaderPauseTest::pauseLeader);

    assertThat(etcd.cluster().members()).noneMatch(EtcdMember::isPaused);
  }

  /**
   * Freezes the leader, waits until another member leads, and schedules the thaw one more election
   * timeout later, so the frozen leader's term is long over when it resumes.
   */
  private static EtcdFailover.Fault pauseLeader(
      ScheduledExecutorService scheduler, CompletableFuture<Void> chaos) {
    EtcdMember leader = etcd.cluster().awaitLeader(Duration.ofSeconds(20));
    long start = System.nanoTime();
    leader.pause();
    EtcdMember next;
    try {
      next = etcd.cluster().awaitNewLeader(leader, Duration.ofSeconds(20));
    } catch (RuntimeException e) {
      leader.resume();
      throw e;
    }
    long elected = System.nanoTime();
    scheduler.schedule(
        () -> {
          try {
            leader.resume();
            etcd.cluster().awaitFollowing(leader, Duration.ofSeconds(20));
          } catch (RuntimeException | Error e) {
            chaos.completeExceptionally(e);
          }
        },
        etcd.cluster().electionTimeout().toMillis(),
        TimeUnit.MILLISECONDS);
    return new EtcdFailover.Fault(
        "SIGSTOP " + leader.name() + " (leader), SIGCONT one election timeout after a new leader",
        start,
        elected,
        next.name());
  }
}
