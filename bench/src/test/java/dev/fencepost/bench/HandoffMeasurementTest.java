package dev.fencepost.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.bench.Suite.Cell;
import dev.fencepost.bench.Suite.Scenario;
import dev.fencepost.testsupport.etcd.EtcdClusterExtension;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The hand-off measurement on the peers with a waiting acquire, on real backends (embedded
 * PostgreSQL for raw JDBC and JdbcLockRegistry, a real etcd for raw jetcd and the Lock RPC), at
 * tiny sizes: every grant after the first is a sample (or, released before the window opened or
 * after it closed, counted as warm-up or drain), a client taking the lock straight back is one of
 * them and shows in the fairness figures, and a cell short of 2,000 samples prints no p99. Counts
 * only, never a timing. The lock servers' targets (E3, P2) are checked the same way in {@link
 * LockBenchSmokeTest}, which starts them.
 */
class HandoffMeasurementTest {

  @RegisterExtension
  static EmbeddedPostgresExtension postgres = EmbeddedPostgresExtension.withChangelog(null);

  @RegisterExtension static EtcdClusterExtension etcd = EtcdClusterExtension.singleMember();

  private static HikariDataSource pool;
  private static List<LockTarget> targets;

  @BeforeAll
  static void targets() throws Exception {
    pool = postgres.server().pool(postgres.database().name(), 8);
    JdbcTargets.createSchema(pool);
    targets =
        List.of(
            JdbcTargets.rawTable(pool),
            JdbcTargets.springIntegration(pool),
            EtcdTargets.rawTransactions(etcd.endpoints()),
            EtcdTargets.lockRpc(etcd.endpoints()));
  }

  @AfterAll
  static void close() throws Exception {
    for (LockTarget t : targets) {
      t.close();
    }
    pool.close();
  }

  private static Suite run(Duration warmUp, Scenario... scenarios) {
    return run(warmUp, Duration.ofMillis(300), scenarios);
  }

  private static Suite run(Duration warmUp, Duration length, Scenario... scenarios) {
    List<String> log = new ArrayList<>();
    Suite suite =
        new Suite(
            Meters.NONE,
            targets,
            // A run goes on (up to 5 s) until it has one sample: a slow machine still gives one.
            new Suite.Plan(1, warmUp, length, Duration.ofSeconds(5), 1),
            log::add);
    suite.run(List.of(scenarios), Duration.ZERO, Duration.ZERO);
    return suite;
  }

  private static Cell cell(Suite suite, Scenario s, LockTarget t) {
    Cell c = suite.cell(s, t.id());
    assertThat(c).as(t.id() + " " + s.key()).isNotNull();
    assertThat(c.errors).as(t.id() + " " + s.key() + " errors: " + c.firstError).isZero();
    assertThat(c.handoffs).as(t.id() + " " + s.key()).isNotNull();
    return c;
  }

  @Test
  void everyGrantAfterTheFirstIsAHandOffSample() {
    Scenario three = new Scenario(Op.HANDOFF, 3);
    Suite suite = run(Duration.ZERO, three);

    for (LockTarget t : targets) {
      Handoffs.Tally h = cell(suite, three, t).handoffs;
      assertThat(h.samples).as(t.id()).isPositive();
      assertThat(h.samples + h.drainHandoffs)
          .as(t.id() + ": grants less the run's first")
          .isEqualTo(h.grants - 1);
      assertThat(h.warmUpHandoffs).as(t.id() + ": no warm-up asked").isZero();
      assertThat(h.firstGrants).as(t.id()).isEqualTo(1);
      assertThat(h.releases).as(t.id() + ": every grant released").isEqualTo(h.grants);
      assertThat(h.overlaps).as(t.id() + ": no grant while held").isZero();
      assertThat(h.failedWaits).as(t.id()).isZero();
      assertThat(h.latency.getTotalCount()).as(t.id()).isEqualTo(h.samples);
      assertThat(Arrays.stream(h.runs.get(0)).sum()).as(t.id()).isEqualTo(h.samples);
      assertThat(h.sameClient + h.toAnother.getTotalCount()).as(t.id()).isEqualTo(h.samples);
      assertThat(h.worstJain()).as(t.id()).isBetween(1.0 / 3, 1.0);
    }
  }

  @Test
  void aSingleClientTakingTheLockStraightBackIsCountedAsAHandOffToItself() {
    // One waiter: every hand-off is the same-client re-acquire the old measurement dropped.
    Scenario one = new Scenario(Op.HANDOFF, 1);
    Suite suite = run(Duration.ZERO, one);

    for (LockTarget t : targets) {
      Handoffs.Tally h = cell(suite, one, t).handoffs;
      assertThat(h.samples).as(t.id()).isPositive();
      assertThat(h.samples + h.drainHandoffs).as(t.id()).isEqualTo(h.grants - 1);
      assertThat(h.sameClient).as(t.id()).isEqualTo(h.samples);
      assertThat(h.sameClientShare()).as(t.id()).isEqualTo(1.0);
      assertThat(h.toAnother.getTotalCount()).as(t.id()).isZero();
    }
  }

  @Test
  void handOffsReleasedDuringTheWarmUpAreNotSamplesButAreAccountedFor() {
    Scenario two = new Scenario(Op.HANDOFF, 2);
    Suite suite = run(Duration.ofMillis(500), two);

    for (LockTarget t : targets) {
      Handoffs.Tally h = cell(suite, two, t).handoffs;
      assertThat(h.warmUpHandoffs).as(t.id()).isPositive();
      assertThat(h.samples).as(t.id()).isPositive();
      assertThat(h.accountsForEveryGrant()).as(t.id()).isTrue();
      assertThat(h.latency.getTotalCount()).as(t.id()).isEqualTo(h.samples);
    }
  }

  @Test
  void aHandOffCellShortOfTwoThousandSamplesPrintsNoP99() {
    Scenario three = new Scenario(Op.HANDOFF, 3);
    Suite suite = run(Duration.ZERO, Duration.ofMillis(100), three);
    LockBench.Settings settings =
        new LockBench.Settings(
            suite.plan(),
            Duration.ZERO,
            Duration.ZERO,
            List.of(),
            3,
            0,
            Duration.ZERO,
            false,
            Path.of("unused"),
            List.of());
    LockBench.Outcome outcome =
        new LockBench.Outcome(
            settings,
            targets,
            suite,
            List.of(three),
            List.of(),
            "test",
            "test",
            1,
            Instant.now(),
            "abc123",
            "0.00 0.00 0.00",
            "0.00 0.00 0.00");
    StringBuilder md = new StringBuilder();
    Report.handoffTable(md, outcome.targets(), outcome.suite(), three);

    for (LockTarget t : targets) {
      Cell c = suite.cell(three, t.id());
      assertThat(c.operations).as(t.id()).isLessThan(Stats.P99_SAMPLES);
      String row =
          md.toString()
              .lines()
              .filter(l -> l.startsWith("| " + t.id() + " |"))
              .findFirst()
              .orElseThrow();
      String[] columns = row.split("\\|");
      // | id | hand-offs | p50 | p90 | p99 | ...: the p99 is the fifth column
      assertThat(columns[5].trim()).as(row).isEqualTo(Stats.NOT_ENOUGH);
      assertThat(columns[2].trim()).as(row).isEqualTo(Long.toString(c.handoffs.samples));
    }
  }
}
