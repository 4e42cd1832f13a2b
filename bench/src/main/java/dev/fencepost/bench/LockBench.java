package dev.fencepost.bench;

import dev.fencepost.bench.Suite.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The suite's entry point: starts the environment, runs every target interleaved, and writes the
 * "Lock benchmarks" section of docs/benchmarks.md and its plot.
 *
 * <p>System properties (defaults give every cell at least 10 s of measurement, ADR 0183): {@code
 * bench.rounds} (2), {@code bench.seconds} (5, per run: rounds x seconds is a cell's minimum),
 * {@code bench.maxSeconds} (15: a run short of its share of the 2,000 samples a p99 needs goes on
 * up to this), {@code bench.warmupSeconds} (1, before every measured run, with its clients), {@code
 * bench.initialWarmupSeconds} (2 per target at the start), {@code bench.serverWarmupSeconds} (120:
 * each lock server's, acquire+release pairs from 8 clients before anything is measured; a lock
 * server's JIT compiler still used about 1 ms of CPU per pair after 150 s of load), {@code
 * bench.handoffWaiters} (16), {@code bench.sessions} (10000), {@code bench.heartbeatSeconds} (15),
 * {@code bench.out} (docs/benchmarks.md), {@code bench.command} (printed at the top), {@code
 * bench.commit} (the commit the script built; else asked of git), {@code bench.serverJvmArgs}.
 * Smoke sizes, e.g. {@code -Dbench.rounds=1 -Dbench.seconds=0.2 -Dbench.maxSeconds=0.2
 * -Dbench.warmupSeconds=0 -Dbench.initialWarmupSeconds=0 -Dbench.serverWarmupSeconds=0
 * -Dbench.sessions=100 -Dbench.heartbeatSeconds=1}, give a report that says it is a smoke run.
 */
public final class LockBench {

  private LockBench() {}

  /** Everything one run needs. */
  public record Settings(
      Suite.Plan plan,
      Duration initialWarmUp,
      Duration serverWarmUp,
      List<Integer> pairClients,
      int handoffWaiters,
      int heartbeatSessions,
      Duration heartbeatDuration,
      boolean measureHeap,
      Path workDir,
      List<String> serverJvmArgs) {}

  /** What a run produced, for the report (and the smoke test). */
  public record Outcome(
      Settings settings,
      List<LockTarget> targets,
      Suite suite,
      List<Scenario> scenarios,
      List<ServerLoad.Result> serverLoad,
      String postgresVersion,
      String etcdVersion,
      double wallSeconds,
      Instant startedAt,
      String commit,
      String loadBefore,
      String loadAfter) {}

  static Duration seconds(String property, String defaultSeconds) {
    return Duration.ofMillis(
        Math.round(1000 * Double.parseDouble(System.getProperty(property, defaultSeconds))));
  }

  /** The settings the system properties (or their defaults) ask for. */
  static Settings fromProperties() {
    return new Settings(
        new Suite.Plan(
            Integer.getInteger("bench.rounds", 2),
            seconds("bench.warmupSeconds", "1"),
            seconds("bench.seconds", "5"),
            seconds("bench.maxSeconds", "15"),
            Stats.P99_SAMPLES),
        seconds("bench.initialWarmupSeconds", "2"),
        seconds("bench.serverWarmupSeconds", "120"),
        List.of(1, 4, 8, 16, 64),
        Integer.getInteger("bench.handoffWaiters", 16),
        Integer.getInteger("bench.sessions", 10_000),
        seconds("bench.heartbeatSeconds", "15"),
        true,
        Path.of(System.getProperty("bench.work", "bench/target/bench-run")),
        splitArgs(System.getProperty("bench.serverJvmArgs", "")));
  }

  public static void main(String[] args) throws Exception {
    Outcome outcome = run(fromProperties(), System.out::println);
    Path out = Path.of(System.getProperty("bench.out", "docs/benchmarks.md"));
    Report.write(outcome, out, System.getProperty("bench.command", "bench/run-lock-bench.sh"));
    System.out.println("wrote " + out + " in " + Math.round(outcome.wallSeconds()) + " s");
    System.exit(0);
  }

  static List<String> splitArgs(String s) {
    List<String> args = new ArrayList<>();
    for (String a : s.trim().split("\\s+")) {
      if (!a.isBlank()) {
        args.add(a);
      }
    }
    return args;
  }

  public static Outcome run(Settings settings, Consumer<String> log) throws Exception {
    Instant startedAt = Instant.now();
    String commit = Provenance.commit();
    String loadBefore = Provenance.loadAverage();
    long t0 = System.nanoTime();
    log.accept("starting PostgreSQL, etcd and two lock servers ...");
    try (Environment env = Environment.start(settings.workDir(), settings.serverJvmArgs())) {
      JdbcTargets.createSchema(env.benchDataSource());
      var p1Pool = env.benchPool(80);
      var peersPool = env.benchPool(80);
      List<LockTarget> targets =
          List.of(
              Floors.loopback(),
              Floors.fdatasync(settings.workDir().resolve("fsync")),
              Floors.httpNoop(env.etcdServer().managementUrl(), "etcd backend"),
              Floors.httpNoopJdk(env.etcdServer().managementUrl(), "etcd backend"),
              EtcdTargets.rawTransactions(env.etcdEndpoints()),
              EtcdTargets.lockRpc(env.etcdEndpoints()),
              new LockServerTarget("E3", env.etcdServer().baseUrl(), Store.ETCD),
              JdbcTargets.rawTable(p1Pool),
              new LockServerTarget("P2", env.postgresServer().baseUrl(), Store.POSTGRES),
              JdbcTargets.shedLock(peersPool),
              JdbcTargets.springIntegration(peersPool));
      List<Scenario> scenarios = new ArrayList<>();
      scenarios.add(new Scenario(Op.FLOOR, 1));
      scenarios.add(new Scenario(Op.ACQUIRE, 1));
      for (int c : settings.pairClients()) {
        scenarios.add(new Scenario(Op.PAIR, c));
      }
      scenarios.add(new Scenario(Op.TRY_HELD, 1));
      scenarios.add(new Scenario(Op.RENEW, 1));
      scenarios.add(new Scenario(Op.INSPECT, 1));
      scenarios.add(new Scenario(Op.HANDOFF, settings.handoffWaiters()));
      Suite suite = new Suite(Meters.of(env), targets, settings.plan(), log);
      suite.run(scenarios, settings.initialWarmUp(), settings.serverWarmUp());
      List<ServerLoad.Result> load = new ArrayList<>();
      if (settings.heartbeatSessions() > 0) {
        log.accept("heartbeat load: " + settings.heartbeatSessions() + " sessions per server");
        load.add(
            ServerLoad.run(
                env.etcdServer(),
                ServerLoad.Transport.STREAM,
                settings.heartbeatSessions(),
                Duration.ofSeconds(5),
                settings.heartbeatDuration(),
                settings.measureHeap(),
                env::etcdFsyncs,
                () -> -1));
        load.add(
            ServerLoad.run(
                env.postgresServer(),
                ServerLoad.Transport.STREAM,
                settings.heartbeatSessions(),
                Duration.ofSeconds(5),
                settings.heartbeatDuration(),
                settings.measureHeap(),
                env::postgresWalSyncs,
                env::postgresTransactionIds));
        load.forEach(r -> log.accept(r.toString()));
      }
      String pgVersion = env.postgresVersion();
      String etcdVersion = env.etcdVersion();
      for (LockTarget t : targets) {
        try {
          t.close();
        } catch (Exception ignored) {
          // end of run
        }
      }
      p1Pool.close();
      peersPool.close();
      Files.createDirectories(settings.workDir());
      return new Outcome(
          settings,
          targets,
          suite,
          scenarios,
          load,
          pgVersion,
          etcdVersion,
          (System.nanoTime() - t0) / 1e9,
          startedAt,
          commit,
          loadBefore,
          Provenance.loadAverage());
    }
  }
}
