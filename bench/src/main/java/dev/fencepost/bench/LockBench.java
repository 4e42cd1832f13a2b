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
 * <p>System properties: {@code bench.rounds} (2), {@code bench.seconds} (1.5 per run), {@code
 * bench.sessions} (10000), {@code bench.heartbeatSeconds} (15), {@code bench.out}
 * (docs/benchmarks.md), {@code bench.command} (printed at the top), {@code bench.serverJvmArgs}.
 */
public final class LockBench {

  private LockBench() {}

  /** Everything one run needs. */
  public record Settings(
      int rounds,
      Duration runDuration,
      Duration warmUp,
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
      double wallSeconds,
      Instant startedAt,
      String uptimeBefore,
      String uptimeAfter) {}

  public static void main(String[] args) throws Exception {
    Settings settings =
        new Settings(
            Integer.getInteger("bench.rounds", 2),
            Duration.ofMillis(
                (long) (1000 * Double.parseDouble(System.getProperty("bench.seconds", "1.5")))),
            Duration.ofSeconds(2),
            List.of(1, 4, 8, 16, 64),
            16,
            Integer.getInteger("bench.sessions", 10_000),
            Duration.ofSeconds(Integer.getInteger("bench.heartbeatSeconds", 15)),
            true,
            Path.of(System.getProperty("bench.work", "bench/target/bench-run")),
            splitArgs(System.getProperty("bench.serverJvmArgs", "")));
    Outcome outcome = run(settings, System.out::println);
    Path out = Path.of(System.getProperty("bench.out", "docs/benchmarks.md"));
    Report.write(outcome, out, System.getProperty("bench.command", "bench/run-lock-bench.sh"));
    System.out.println("wrote " + out + " in " + Math.round(outcome.wallSeconds()) + " s");
    System.exit(0);
  }

  /**
   * The machine's load as {@code uptime} prints it, so a reader sees how busy the shared machine
   * was at the start and end of the run.
   */
  static String uptime() {
    try {
      Process p = new ProcessBuilder("uptime").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).trim();
      p.waitFor();
      return out.isEmpty() ? "?" : out;
    } catch (Exception e) {
      try {
        return "loadavg " + Files.readString(Path.of("/proc/loadavg")).trim();
      } catch (Exception again) {
        return "?";
      }
    }
  }

  private static List<String> splitArgs(String s) {
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
    String uptimeBefore = uptime();
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
      Suite suite = new Suite(env, targets, settings.runDuration(), settings.rounds(), log);
      suite.run(scenarios, settings.warmUp());
      List<ServerLoad.Result> load = new ArrayList<>();
      if (settings.heartbeatSessions() > 0) {
        log.accept("heartbeat load: " + settings.heartbeatSessions() + " sessions per server");
        load.add(
            ServerLoad.run(
                env.etcdServer(),
                settings.heartbeatSessions(),
                Duration.ofSeconds(5),
                settings.heartbeatDuration(),
                settings.measureHeap(),
                env::etcdFsyncs,
                () -> -1));
        load.add(
            ServerLoad.run(
                env.postgresServer(),
                settings.heartbeatSessions(),
                Duration.ofSeconds(5),
                settings.heartbeatDuration(),
                settings.measureHeap(),
                env::postgresWalSyncs,
                env::postgresTransactionIds));
        load.forEach(r -> log.accept(r.toString()));
      }
      String pgVersion = env.postgresVersion();
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
          (System.nanoTime() - t0) / 1e9,
          startedAt,
          uptimeBefore,
          uptime());
    }
  }
}
