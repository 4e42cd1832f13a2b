package dev.fencepost.bench;

import dev.fencepost.bench.Suite.Scenario;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The suite's contended hand-off cell on its own: {@code probe.waiters} (16) clients loop a waiting
 * acquire and a release on one key, against the targets of {@code probe.targets} ({@code
 * P2,E3,P4}), {@code probe.rounds} (3) rounds of at least 10 s each after each lock server's {@code
 * probe.serverWarmupSeconds} (60) of acquire+release. Prints the suite's hand-off table, CPU per
 * hand-off included. {@code probe.serverJvmArgs} go to both lock servers (a system property that
 * changes their configuration, say). A diagnostic for changes to how waiters are woken, quicker
 * than the whole suite; the suite's own cell is the figure to quote. Run it alone on a quiet
 * machine:
 *
 * <pre>
 * java -Dlogback.configurationFile=bench/logback-harness.xml -Dfencepost.apps.dir=bench/target/apps \
 *   -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.fencepost.bench.HandoffProbe
 * </pre>
 */
public final class HandoffProbe {

  private HandoffProbe() {}

  public static void main(String[] args) throws Exception {
    int waiters = Integer.getInteger("probe.waiters", 16);
    List<String> wanted = List.of(System.getProperty("probe.targets", "P2,E3,P4").split(","));
    Suite.Plan plan =
        new Suite.Plan(
            Integer.getInteger("probe.rounds", 3),
            Duration.ofSeconds(1),
            Duration.ofSeconds(10),
            Duration.ofSeconds(15),
            2_000);
    System.out.println("commit " + Provenance.commit() + ", load " + Provenance.loadAverage());
    Path work = Path.of("bench/target/handoff-probe");
    try (Environment env =
        Environment.start(
            work, LockBench.splitArgs(System.getProperty("probe.serverJvmArgs", "")))) {
      JdbcTargets.createSchema(env.benchDataSource());
      var peersPool = env.benchPool(40);
      List<LockTarget> targets = new ArrayList<>();
      for (String id : wanted) {
        targets.add(
            switch (id) {
              case "P2" ->
                  new LockServerTarget("P2", env.postgresServer().baseUrl(), Store.POSTGRES);
              case "E3" -> new LockServerTarget("E3", env.etcdServer().baseUrl(), Store.ETCD);
              case "P4" -> JdbcTargets.springIntegration(peersPool);
              case "E1" -> EtcdTargets.rawTransactions(env.etcdEndpoints());
              default -> throw new IllegalArgumentException("no hand-off target " + id);
            });
      }
      Scenario handoff = new Scenario(Op.HANDOFF, waiters);
      Suite suite = new Suite(Meters.of(env), targets, plan, System.out::println);
      suite.run(
          List.of(handoff),
          Duration.ofSeconds(2),
          LockBench.seconds("probe.serverWarmupSeconds", "60"));
      StringBuilder md = new StringBuilder();
      Report.handoffTable(md, targets, suite, handoff);
      System.out.println();
      System.out.print(md);
      System.out.println("load after " + Provenance.loadAverage());
      for (LockTarget t : targets) {
        t.close();
      }
      peersPool.close();
    }
    System.exit(0);
  }
}
