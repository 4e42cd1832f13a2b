package dev.fencepost.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.lock.FencingToken;
import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.Actor;
import dev.fencepost.payment.PaymentResource;
import dev.fencepost.payment.PayoutId;
import dev.fencepost.payment.PayoutIntake;
import dev.fencepost.payment.PayoutState;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * A worker's paydb path on its own: {@code probe.threads} (16) threads each take payouts of their
 * own accounts through the fenced transitions a posted payout makes (the claim, then the settlement
 * of ADR 0219, or with {@code -Dprobe.settle=false} submitted, acked and posted one at a time) with
 * payment-resource, against a dedicated embedded PostgreSQL (synchronous_commit on, or off with
 * {@code -Dprobe.synchronousCommit=false}; the embedded servers' group commit) as paydb's runtime
 * role. {@code probe.warmup} (4,000) payouts first, then {@code probe.payouts} (12,000) measured.
 * Prints payouts a second, the CPU per payout of PostgreSQL (the postmaster and its backends) and
 * of this process, write transactions and WAL flushes per payout, and the p50/p99 of one payout's
 * calls.
 *
 * <p>A diagnostic for changes to what a transition asks of paydb (ADR 0216), quicker and quieter
 * than the payout benchmark, which runs the lock server, the proxy and the rail beside it. No lock
 * server: tokens come from a counter, and each thread keeps to its own accounts, so no call is
 * fenced out. Run it alone on a quiet machine:
 *
 * <pre>
 * java -Dlogback.configurationFile=bench/logback-harness.xml \
 *   -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.fencepost.bench.PaydbProbe
 * </pre>
 */
public final class PaydbProbe {

  private static final String CHANGELOG = "db/changelog/paydb/db.changelog-master.yaml";

  /**
   * true (the default): after the claim, the worker's settlement in one transaction (ADR 0219);
   * false ({@code -Dprobe.settle=false}): the three transitions one transaction each, as before it.
   */
  private static final boolean SETTLE =
      Boolean.parseBoolean(System.getProperty("probe.settle", "true"));

  private PaydbProbe() {}

  public static void main(String[] args) throws Exception {
    int threads = Integer.getInteger("probe.threads", 16);
    int warmup = Integer.getInteger("probe.warmup", 4_000);
    int measured = Integer.getInteger("probe.payouts", 12_000);
    int accountsPerThread = Integer.getInteger("probe.accountsPerThread", 64);
    // false measures what waiting for the WAL flush costs; a crash may then lose commits.
    boolean synchronousCommit =
        Boolean.parseBoolean(System.getProperty("probe.synchronousCommit", "true"));
    System.out.println("commit " + Provenance.commit() + ", load " + Provenance.loadAverage());
    try (EmbeddedPostgresServer server =
            EmbeddedPostgresServer.builder().synchronousCommit(synchronousCommit).start();
        PostgresDatabase paydb = server.createDatabase("paydb_probe").applyChangelog(CHANGELOG);
        HikariDataSource pool = runtimePool(paydb, threads)) {
      PayoutIntake intake = new PayoutIntake(paydb.dataSource(), "paydb-probe");
      int accounts = threads * accountsPerThread;
      int payouts = warmup + measured;
      List<List<PayoutId>> work = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        work.add(new ArrayList<>());
      }
      for (int a = 0; a < accounts; a++) {
        intake.createAccount(AccountId.of("probe-" + a), 1_000_000_000L);
      }
      for (int p = 0; p < payouts; p++) {
        int account = p % accounts;
        work.get(account % threads)
            .add(
                intake
                    .createPendingPayout(AccountId.of("probe-" + account), 100, "EUR", "bene-" + p)
                    .id());
      }
      PaymentResource resource = new PaymentResource(pool, new SimpleMeterRegistry());
      JdbcClient stats = JdbcClient.create(paydb.dataSource());
      AtomicLong tokens = new AtomicLong(1);
      Histogram latency = new Histogram(60_000_000_000L, 3);
      CountDownLatch warmedUp = new CountDownLatch(threads);
      CountDownLatch go = new CountDownLatch(1);
      CountDownLatch finished = new CountDownLatch(threads);
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        List<PayoutId> mine = work.get(t);
        int warm = warmup / threads;
        Actor worker = Actor.worker("probe-" + t);
        Thread thread =
            new Thread(
                () -> {
                  try {
                    for (int i = 0; i < mine.size(); i++) {
                      if (i == warm) {
                        warmedUp.countDown();
                        go.await();
                      }
                      long started = System.nanoTime();
                      pay(resource, mine.get(i), FencingToken.of(tokens.incrementAndGet()), worker);
                      if (i >= warm) {
                        synchronized (latency) {
                          latency.recordValue(System.nanoTime() - started);
                        }
                      }
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  } finally {
                    finished.countDown();
                  }
                },
                "paydb-probe-" + t);
        workers.add(thread);
        thread.start();
      }
      warmedUp.await();
      long pid = server.postmasterPid();
      long pgCpu = Environment.pidCpu(pid, true);
      long ownCpu = ownCpu();
      long xids = xmax(stats);
      long syncs = walSyncs(stats);
      long started = System.nanoTime();
      go.countDown();
      finished.await();
      double seconds = (System.nanoTime() - started) / 1e9;
      int done = work.stream().mapToInt(List::size).sum() - (warmup / threads) * threads;
      pgCpu = Environment.pidCpu(pid, true) - pgCpu;
      ownCpu = ownCpu() - ownCpu;
      xids = xmax(stats) - xids;
      // A busy backend hands its WAL statistics over only now and then, and always as it exits.
      awaitExit(backendsOf(stats, paydb.runtime().username()), pool);
      syncs = walSyncs(stats) - syncs;
      long posted =
          stats
              .sql("SELECT count(*) FROM payout WHERE state = :s")
              .param("s", PayoutState.POSTED.name())
              .query(Long.class)
              .single();
      System.out.printf(
          "%d threads, %d accounts, %d payouts measured after %d (%d posted in all),"
              + " synchronous_commit %s, %s%n",
          threads,
          accounts,
          done,
          warmup,
          posted,
          synchronousCommit ? "on" : "off",
          SETTLE ? "claim and settle" : "claim and three steps");
      System.out.printf("payouts/s                          %.1f%n", done / seconds);
      System.out.printf("CPU ms per payout, PostgreSQL      %.3f%n", pgCpu / 1e6 / done);
      System.out.printf("CPU ms per payout, this process    %.3f%n", ownCpu / 1e6 / done);
      System.out.printf("write transactions per payout      %.2f%n", (double) xids / done);
      System.out.printf("WAL flushes per payout             %.2f%n", (double) syncs / done);
      System.out.printf(
          "one payout's calls p50 / p99 ms   %.3f / %.3f%n",
          latency.getValueAtPercentile(50) / 1e6, latency.getValueAtPercentile(99) / 1e6);
      System.out.println("load after " + Provenance.loadAverage());
      for (Thread t : workers) {
        t.join();
      }
    }
    System.exit(0);
  }

  private static void pay(PaymentResource paydb, PayoutId id, FencingToken token, Actor worker) {
    paydb.claim(id, token, worker);
    if (SETTLE) {
      paydb.settle(id, token, worker, "R-" + id);
      return;
    }
    paydb.markSubmitted(id, token, worker);
    paydb.recordRailAcked(id, token, worker, "R-" + id);
    paydb.post(id, token, worker);
  }

  private static HikariDataSource runtimePool(PostgresDatabase paydb, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(paydb.jdbcUrl());
    config.setUsername(paydb.runtime().username());
    config.setPassword(paydb.runtime().password());
    config.setMaximumPoolSize(size);
    config.setPoolName("paydb-probe");
    return new HikariDataSource(config);
  }

  private static long ownCpu() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static long xmax(JdbcClient stats) {
    return stats.sql(Environment.NEXT_TRANSACTION_ID).query(Long.class).single();
  }

  private static long walSyncs(JdbcClient stats) {
    return stats.sql(Environment.WAL_SYNCS).query(Long.class).single();
  }

  private static List<Long> backendsOf(JdbcClient stats, String role) {
    return stats
        .sql("SELECT pid FROM pg_stat_activity WHERE usename = :role")
        .param("role", role)
        .query(Long.class)
        .list();
  }

  /** Closes {@code pool} and waits until each of {@code backends} has exited. */
  private static void awaitExit(List<Long> backends, HikariDataSource pool) throws Exception {
    pool.close();
    for (long pid : backends) {
      Optional<ProcessHandle> backend = ProcessHandle.of(pid);
      if (backend.isPresent()) {
        backend.get().onExit().get(30, TimeUnit.SECONDS);
      }
    }
  }
}
