package dev.fencepost.experiments.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.experiments.chaos.ChaosDriver.Fault;
import dev.fencepost.experiments.harness.EtcdGrants;
import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.Guards;
import dev.fencepost.experiments.harness.LockBackend;
import dev.fencepost.experiments.harness.LockServers;
import dev.fencepost.experiments.harness.RunResult;
import dev.fencepost.history.History;
import dev.fencepost.history.HistoryFiles;
import dev.fencepost.history.Records;
import dev.fencepost.launcher.etcd.EtcdCluster;
import dev.fencepost.launcher.process.JavaProcess;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.awaitility.Awaitility;

/**
 * The chaos run (ADR 0108): several looping payout workers drain a backlog over many accounts with
 * 0.5% rail ambiguity while a seeded driver freezes workers past their lease, kills and replaces
 * them, restarts the lock server and restarts PostgreSQL, each fault an {@code event}. When the
 * faults stop and the backlog has settled, every safety counter of the history checker is 0; the
 * liveness figures are printed, recorded and written to the evidence report, and each mutation of
 * the run's own history must be caught ({@link ChecksBite}, the negative control). On etcd (ADR
 * 0171) the run owns a 3-member cluster and the driver also kills its leader and freezes its
 * members. {@link ChaosRunIT} is the CI tier (200 payouts), {@link ChaosRunLongIT} the long tier
 * (2,000, only with {@code -Dexperiments.long=true}), each once per backend. {@code
 * -Dexperiments.chaos.seed=N} replays a fault sequence.
 */
final class ChaosRun {

  private ChaosRun() {}

  /** The stub's default ambiguity mix (docs/rail.md), 0.5% in all, and no declines. */
  static final Map<String, Double> AMBIGUITY =
      new TreeMap<>(
          Map.of(
              "TIMEOUT_BEFORE_SETTLE", 0.0015,
              "TIMEOUT_AFTER_SETTLE", 0.002,
              "ERROR_AFTER_SETTLE", 0.001,
              "RESET", 0.0005));

  /** The share of payouts the stub leaves ambiguous, e.g. {@code 0.5%}. */
  static String ambiguityPercent() {
    double sum = AMBIGUITY.values().stream().mapToDouble(Double::doubleValue).sum();
    return String.format(Locale.ROOT, "%.1f%%", sum * 100);
  }

  record Tier(
      String name,
      int accounts,
      int payoutsPerAccount,
      int workers,
      Duration faultWindow,
      Duration settleWithin) {
    int payouts() {
      return accounts * payoutsPerAccount;
    }
  }

  static final Tier CI = new Tier("CI", 20, 10, 4, Duration.ofSeconds(40), Duration.ofMinutes(6));
  static final Tier LONG =
      new Tier("long", 100, 20, 4, Duration.ofMinutes(6), Duration.ofMinutes(20));

  static final long AMOUNT = 100;

  /**
   * The lock backends the long tier runs on: both, or those {@code
   * -Dexperiments.chaos.backends=ETCD} (comma separated) names, to replay or regenerate one.
   */
  static Stream<LockBackend> backends() {
    return named().orElseGet(() -> Arrays.stream(LockBackend.values()));
  }

  /**
   * The lock backends the CI tier runs on: PostgreSQL, or those {@code
   * -Dexperiments.chaos.backends} names. The run on etcd is the long tier's (ADR 0171): it costs
   * the suite 90 s, and the long tier's etcd run has the same faults with ten times the payouts.
   */
  static Stream<LockBackend> ciBackends() {
    return named().orElseGet(() -> Stream.of(LockBackend.POSTGRES));
  }

  private static Optional<Stream<LockBackend>> named() {
    String named = System.getProperty("experiments.chaos.backends", "").trim();
    if (named.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        Arrays.stream(named.split(","))
            .map(n -> LockBackend.valueOf(n.trim().toUpperCase(Locale.ROOT))));
  }

  /** Members of the etcd cluster of a chaos run on etcd: a leader kill leaves a quorum. */
  static final int ETCD_MEMBERS = 3;

  /** The scenario name of a run, which is also its run directory: {@code chaos-etcd-ci}. */
  static String scenario(Tier tier, LockBackend backend) {
    return "chaos"
        + (backend == LockBackend.ETCD ? "-etcd" : "")
        + "-"
        + tier.name().toLowerCase(Locale.ROOT);
  }

  /** The evidence page of a run: chaos.md (long, PostgreSQL), chaos-etcd-ci.md, ... */
  static String evidenceName(Tier tier, LockBackend backend) {
    return "chaos" + (backend == LockBackend.ETCD ? "-etcd" : "") + (tier == LONG ? "" : "-ci");
  }

  static String backendName(LockBackend backend) {
    return backend == LockBackend.ETCD ? "etcd, " + ETCD_MEMBERS + " members" : "PostgreSQL";
  }

  /**
   * One chaos run of {@code tier} on {@code backend}, with its assertions; the evidence report is
   * written once they passed, naming {@code test} as what regenerates it. Both backends share all
   * of it; etcd adds its own cluster and its faults to the menu ({@link Fault#menu}).
   */
  static void run(Tier tier, LockBackend backend, Class<?> test) {
    long seed = Long.getLong("experiments.chaos.seed", System.currentTimeMillis());
    System.out.println(
        "chaos run: tier " + tier.name() + ", backend " + backend + ", seed " + seed);
    List<Fault> menu = Fault.menu(backend);
    String title =
        "Chaos run ("
            + tier.name()
            + " tier, "
            + backendName(backend)
            + "): "
            + tier.payouts()
            + " payouts, "
            + tier.workers()
            + " workers, seed "
            + seed;
    try (ExperimentRun run =
            ExperimentRun.startOnOwnLockServer(
                scenario(tier, backend), title, Guards.ALL_ON, backend);
        // The run's own etcd (null on PostgreSQL: try-with-resources skips it).
        EtcdCluster etcd =
            backend == LockBackend.ETCD
                ? EtcdCluster.builder().members(ETCD_MEMBERS).start()
                : null;
        // Started before the seeding, which does not need it; a chaos restart keeps its port.
        JavaProcess lockServer =
            LockServers.start(
                "chaos lock server",
                run.dir().resolve("logs").resolve("lock-server-chaos.log"),
                etcd != null
                    ? LockServers.onEtcd(etcd.endpoints())
                    : LockServers.on(run.stack().lockdb()))) {
      run.event(
          null, "SEED", "chaos seed " + seed + " (replay: -Dexperiments.chaos.seed=" + seed + ")");
      for (int a = 0; a < tier.accounts(); a++) {
        run.payouts(
            "chaos" + a, 2 * AMOUNT * tier.payoutsPerAccount(), tier.payoutsPerAccount(), AMOUNT);
      }
      PaydbProgress progress = new PaydbProgress(run.paydb());
      setRailAmbiguity(run);
      ChaosDriver driver =
          new ChaosDriver(
              run,
              lockServer,
              etcd,
              seed,
              tier.workers(),
              menu,
              tier.faultWindow(),
              progress::settled);
      try {
        driver.startWorkers();
        Awaitility.await("the first payout is posted")
            .atMost(Duration.ofMinutes(5))
            .pollInterval(Duration.ofMillis(500))
            .until(() -> progress.count("POSTED") > 0);
        driver.begin();
        Awaitility.await("the chaos driver ends its fault window")
            .atMost(tier.faultWindow().plus(Duration.ofMinutes(10)))
            .pollInterval(Duration.ofMillis(500))
            .until(driver::finished);
        driver.quiesce();
        run.event(null, "QUIESCE", "faults over; waiting for the backlog to settle");
        Awaitility.await(
                "every payout terminal, RAIL_AMBIGUOUS, or PENDING behind an ambiguous one")
            .atMost(tier.settleWithin())
            .pollInterval(Duration.ofSeconds(1))
            .until(progress::settled);
      } finally {
        driver.close();
        run.stack().resetRailFaults();
      }
      if (etcd != null) {
        // Read with every member up; the lock server's writes are all under its prefix.
        run.addRecords(EtcdGrants.read(etcd.endpoints()));
      }

      Map<String, Long> states = progress.states();
      long held = progress.heldBehindAmbiguous();
      Duration stall = progress.longestStall();
      long fencedBefore =
          HistoryFiles.read(run.dir()).effects.stream()
              .filter(e -> e.outcome() != null && e.outcome().startsWith("FENCED"))
              .count();
      run.event(
          null,
          "LIVENESS",
          "states "
              + states
              + "; held behind ambiguous "
              + held
              + "; fenced-out effects "
              + fencedBefore
              + "; longest stall "
              + stall);
      RunResult result = run.finish();

      ChaosFigures figures =
          new ChaosFigures(
              tier.name(),
              backendName(backend),
              seed,
              tier.payouts(),
              tier.workers(),
              driver.injected(),
              driver.leadersElected(),
              LeaderDown.of(result.history()),
              states,
              held,
              result.fencedEffects().size(),
              stall);
      System.out.println(figures.markdown());
      System.out.println(result.report().toMarkdown(title));

      assertThat(result.report().safe()).as(result.report().toMarkdown(title)).isTrue();
      assertThat(states.values().stream().mapToLong(Long::longValue).sum())
          .isEqualTo(tier.payouts());
      assertThat(progress.unsettled()).as("payouts in flight or PENDING for no reason").isZero();
      assertThat(driver.injected().keySet())
          .as("each kind of fault was injected")
          .containsExactlyInAnyOrderElementsOf(menu);
      assertThat(driver.leadersElected())
          .as("after every etcd leader kill a leader of a later raft term was elected")
          .isEqualTo(driver.injected().getOrDefault(Fault.ETCD_LEADER_KILL, 0));
      List<ChecksBite.Bite> bites = ChecksBite.on(run.dir());
      bites.forEach(b -> System.out.println("negative control: " + b));
      assertThat(bites)
          .as("each mutation of this run's own history is caught by its counter")
          .allSatisfy(b -> assertThat(b.caught()).as(b.toString()).isPositive());

      ChaosEvidence.write(evidenceName(tier, backend), test, result, figures, bites);
    }
  }

  static void setRailAmbiguity(ExperimentRun run) {
    run.stack().stubAdmin().faults(AMBIGUITY, Map.of());
    run.event(null, "RAIL_FAULTS", "stub ambiguity " + ambiguityPercent() + ": " + AMBIGUITY);
  }

  /**
   * The workers' lock operations (acquire, release; their {@code client_op} records) begun between
   * an {@code ETCD_LEADER_KILL} event and the killed member's {@code ETCD_RESTARTED}: what the
   * workers asked of the lock server while the cluster ran on two members. One monotonic clock
   * serves every process of the machine, so the workers' and the harness's nanos compare.
   */
  record LeaderDown(long operations, long failed) {
    static LeaderDown of(History h) {
      List<Records.Event> events =
          h.events.stream()
              .filter(e -> e.nanos() != null)
              .sorted(Comparator.comparing(Records.Event::nanos))
              .toList();
      long operations = 0;
      long failed = 0;
      for (int i = 0; i < events.size(); i++) {
        if (!events.get(i).kind().equals("ETCD_LEADER_KILL")) {
          continue;
        }
        long from = events.get(i).nanos();
        long to =
            events.subList(i, events.size()).stream()
                .filter(e -> e.kind().equals("ETCD_RESTARTED"))
                .map(Records.Event::nanos)
                .findFirst()
                .orElse(Long.MAX_VALUE);
        for (Records.ClientOp op : h.clientOps) {
          if (op.invokeNanos() != null && op.invokeNanos() >= from && op.invokeNanos() <= to) {
            operations++;
            if ("FAILED".equals(op.outcome())) {
              failed++;
            }
          }
        }
      }
      return new LeaderDown(operations, failed);
    }
  }

  /** What the chaos run measured besides the checker's counters. */
  record ChaosFigures(
      String tier,
      String backend,
      long seed,
      int payouts,
      int workers,
      Map<Fault, Integer> faults,
      int leadersElected,
      LeaderDown leaderDown,
      Map<String, Long> states,
      long heldBehindAmbiguous,
      int fencedOut,
      Duration longestStall) {

    String markdown() {
      StringBuilder md = new StringBuilder();
      md.append("| figure | value |\n|---|---|\n");
      md.append("| tier | ").append(tier).append(" |\n");
      md.append("| lock backend | ").append(backend).append(" |\n");
      md.append("| seed | `").append(seed).append("` |\n");
      md.append("| payouts / workers at a time | ")
          .append(payouts)
          .append(" / ")
          .append(workers)
          .append(" |\n");
      faults.forEach(
          (f, n) -> md.append("| faults: ").append(f).append(" | ").append(n).append(" |\n"));
      if (faults.containsKey(Fault.ETCD_LEADER_KILL)) {
        md.append("| leader of a later raft term elected after a leader kill | ")
            .append(leadersElected)
            .append(" |\n");
        md.append("| workers' lock operations begun while a killed leader was down (failed) | ")
            .append(leaderDown.operations())
            .append(" (")
            .append(leaderDown.failed())
            .append(") |\n");
      }
      states.forEach(
          (s, n) -> md.append("| payouts ").append(s).append(" | ").append(n).append(" |\n"));
      md.append("| of those PENDING: held behind a RAIL_AMBIGUOUS payout of their account | ")
          .append(heldBehindAmbiguous)
          .append(" |\n");
      md.append("| fenced-out effects (a guard refused a stale token) | ")
          .append(fencedOut)
          .append(" |\n");
      md.append("| longest stall (no payout changed state) | ")
          .append(longestStall.toMillis() / 1000.0)
          .append(" s |\n");
      return md.toString();
    }
  }
}
