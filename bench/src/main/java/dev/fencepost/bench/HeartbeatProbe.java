package dev.fencepost.bench;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The suite's heartbeat load on one lock server alone, held longer: {@code probe.sessions} (10,000)
 * sessions each sending a keepalive every 5 s for {@code probe.seconds} (120), after {@code
 * probe.warmupSeconds} (60) of the same load unmeasured, so that the server's JIT compilers have
 * done most of their work. {@code probe.server} picks the server: {@code postgres} (the default) or
 * {@code etcd}; {@code probe.transport} how keepalives are sent: {@code stream} (the default, one
 * keepalive stream per session as the starter holds it, ADR 0224) or {@code request} (one HTTP
 * request each). Prints the load's figures, and the live heap per session, per stream and per held
 * lock; on PostgreSQL also what the keepalives did to {@code lock_session} (updates, of which HOT,
 * dead rows, table and index sizes), before and after. {@code bench.serverJvmArgs} go to the lock
 * servers' JVMs, e.g. a JFR recording. A diagnostic for keepalives that fall behind or cost too
 * much; the suite's row is the figure to quote. Run it alone on a quiet machine:
 *
 * <pre>
 * java -Dlogback.configurationFile=bench/logback-harness.xml -Dfencepost.apps.dir=bench/target/apps \
 *   -Dprobe.server=etcd \
 *   -Dbench.serverJvmArgs="-XX:StartFlightRecording=filename=/tmp/{server}.jfr,settings=profile" \
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
    Duration warmup = LockBench.seconds("probe.warmupSeconds", "60");
    boolean etcd = "etcd".equals(System.getProperty("probe.server", "postgres"));
    ServerLoad.Transport transport =
        ServerLoad.Transport.valueOf(
            System.getProperty("probe.transport", "stream").toUpperCase(java.util.Locale.ROOT));
    List<String> jvmArgs = LockBench.splitArgs(System.getProperty("bench.serverJvmArgs", ""));
    System.out.println("commit " + Provenance.commit() + ", load " + Provenance.loadAverage());
    try (Environment env = Environment.start(Path.of("bench/target/heartbeat-probe"), jvmArgs)) {
      if (!etcd) {
        System.out.println("lock_session before: " + table(env));
      }
      if (!warmup.isZero()) {
        ServerLoad.Result w = load(env, etcd, transport, sessions, warmup, false);
        if (w.heartbeats() == null) {
          throw new IllegalStateException("the warm-up did not run: " + w.error());
        }
        System.out.println("warmed up for " + warmup.toSeconds() + " s");
      }
      ServerLoad.Result r = load(env, etcd, transport, sessions, duration, true);
      if (r.heartbeats() == null) {
        throw new IllegalStateException("the load did not run: " + r.error());
      }
      System.out.printf(
          "%s: asked %.0f/s, done %.0f/s, corrected p50 %s ms p99 %s ms, service p50 %s ms p99 %s"
              + " ms, server cores %.3f (%.3f ms per keepalive), commits per keepalive %.3f,"
              + " errors %d; %s, %d streams opened, heap per stream %.0f B, per session %.0f B,"
              + " per lock %.0f B%n",
          etcd ? "etcd" : "postgres",
          r.heartbeatsPerSecond(),
          r.heartbeats().throughput(),
          Stats.quote(r.heartbeats().latency(), 50),
          Stats.quote(r.heartbeats().latency(), 99),
          Stats.quote(r.heartbeats().serviceTime(), 50),
          Stats.quote(r.heartbeats().serviceTime(), 99),
          r.serverCores(),
          r.serverCores() * 1000 / r.heartbeats().throughput(),
          r.writeTransactionsPerHeartbeat(),
          r.heartbeats().errors(),
          r.transport(),
          r.streamsOpened(),
          r.bytesPerStream(),
          r.bytesPerSession(),
          r.bytesPerLock());
      if (!etcd) {
        System.out.println("lock_session after: " + table(env));
      }
      System.out.println("load after " + Provenance.loadAverage());
    }
    System.exit(0);
  }

  /** The suite's heartbeat load on one server, with that backend's durability counters. */
  private static ServerLoad.Result load(
      Environment env,
      boolean etcd,
      ServerLoad.Transport transport,
      int sessions,
      Duration duration,
      boolean measureHeap) {
    LongSupplier fsyncs = etcd ? env::etcdFsyncs : env::postgresWalSyncs;
    LongSupplier writes = etcd ? () -> -1 : env::postgresTransactionIds;
    return ServerLoad.run(
        etcd ? env.etcdServer() : env.postgresServer(),
        transport,
        sessions,
        Duration.ofSeconds(5),
        duration,
        measureHeap,
        fsyncs,
        writes);
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
