package dev.fencepost.bench;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

/**
 * The suite's heartbeat load on the PostgreSQL lock server alone, held longer: {@code
 * probe.sessions} (10,000) sessions each sending a keepalive every 5 s for {@code probe.seconds}
 * (120). Prints the load's figures and what the keepalives did to {@code lock_session} (updates, of
 * which HOT, dead rows, table and index sizes), before and after. A diagnostic for keepalives that
 * fall behind; the suite's row is the figure to quote. Run it alone on a quiet machine:
 *
 * <pre>
 * java -Dlogback.configurationFile=bench/logback-harness.xml -Dfencepost.apps.dir=bench/target/apps \
 *   -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.fencepost.bench.HeartbeatProbe
 * </pre>
 */
public final class HeartbeatProbe {

  private static final String TABLE =
      """
      SELECT n_tup_upd, n_tup_hot_upd, n_live_tup, n_dead_tup, autovacuum_count,
             pg_relation_size('lock_session') AS heap_bytes,
             pg_indexes_size('lock_session') AS index_bytes
        FROM pg_stat_user_tables WHERE relname = 'lock_session'
      """;

  private HeartbeatProbe() {}

  public static void main(String[] args) throws Exception {
    int sessions = Integer.getInteger("probe.sessions", 10_000);
    Duration duration = LockBench.seconds("probe.seconds", "120");
    System.out.println("commit " + Provenance.commit() + ", load " + Provenance.loadAverage());
    try (Environment env = Environment.start(Path.of("bench/target/heartbeat-probe"), List.of())) {
      System.out.println("lock_session before: " + table(env));
      ServerLoad.Result r =
          ServerLoad.run(
              env.postgresServer(),
              sessions,
              Duration.ofSeconds(5),
              duration,
              false,
              env::postgresWalSyncs,
              env::postgresTransactionIds);
      System.out.printf(
          "asked %.0f/s, done %.0f/s, corrected p50 %s ms p99 %s ms, service p50 %s ms p99 %s ms,"
              + " server cores %.3f, commits per keepalive %.3f, errors %d%n",
          r.heartbeatsPerSecond(),
          r.heartbeats().throughput(),
          Stats.quote(r.heartbeats().latency(), 50),
          Stats.quote(r.heartbeats().latency(), 99),
          Stats.quote(r.heartbeats().serviceTime(), 50),
          Stats.quote(r.heartbeats().serviceTime(), 99),
          r.serverCores(),
          r.writeTransactionsPerHeartbeat(),
          r.heartbeats().errors());
      System.out.println("lock_session after: " + table(env));
      System.out.println("load after " + Provenance.loadAverage());
    }
    System.exit(0);
  }

  private static String table(Environment env) throws Exception {
    try (Connection c = env.lockDbConnection();
        Statement s = c.createStatement()) {
      s.execute("SELECT pg_stat_force_next_flush()");
      try (ResultSet rs = s.executeQuery(TABLE)) {
        if (!rs.next()) {
          return "(no statistics)";
        }
        return String.format(
            "updates %d (HOT %d), live %d, dead %d, autovacuums %d, heap %d KiB, indexes %d KiB",
            rs.getLong(1),
            rs.getLong(2),
            rs.getLong(3),
            rs.getLong(4),
            rs.getLong(5),
            rs.getLong(6) / 1024,
            rs.getLong(7) / 1024);
      }
    }
  }
}
