package dev.fencepost.localstack;

import dev.fencepost.launcher.App;
import dev.fencepost.launcher.LocalIdentity;
import dev.fencepost.launcher.LocalPlatform;
import dev.fencepost.launcher.LocalPlatform.LockBackend;
import dev.fencepost.launcher.PayoutWorkerArgs;
import dev.fencepost.launcher.RailStubAdmin;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.LedgerAudit;
import dev.fencepost.payment.PayoutIntake;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.security.FencepostRole;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * One local run of the platform on the launcher's {@link LocalPlatform}: seeds synthetic payouts
 * through {@link PayoutIntake}, runs rounds of racing payout-worker processes until nothing
 * actionable is left, runs reconciliation as its own process, and reads every figure of the summary
 * from the stores themselves (paydb, proxydb, the stub's ground truth), never from what a worker
 * says about itself.
 */
final class LocalRun implements AutoCloseable {

  /**
   * How often the run counts finished payouts while the workers run. What the count reads lands in
   * the paydb CPU that the benchmarks charge to the payouts, so it counts the unfinished ones only
   * ({@link #UNFINISHED}). Once a second is fine enough for a progress line and for the cost
   * meter's window edges (about 150 payouts at 150 payouts/s).
   */
  private static final long PROGRESS_POLL_MILLIS = 1000;

  /** The states no worker acts on: a payout in one of them is finished for this run's count. */
  static final Set<PayoutState> FINISHED =
      EnumSet.of(
          PayoutState.POSTED,
          PayoutState.FAILED,
          PayoutState.RAIL_AMBIGUOUS,
          PayoutState.ABANDONED);

  /**
   * The payouts not finished yet. The {@code IN} list lets index {@code payout_state_updated} hand
   * over only their entries, so a poll costs what is left to do, not what the run has done: the
   * earlier count read every payout row ({@code GROUP BY state}), and in the measured window of a
   * 65,000-payout benchmark it took 0.155 ms of paydb's time per payout (pg_stat_statements).
   */
  static final String UNFINISHED =
      "SELECT count(*) FROM payout WHERE state IN "
          + EnumSet.complementOf(EnumSet.copyOf(FINISHED)).stream()
              .map(s -> "'" + s.name() + "'")
              .collect(Collectors.joining(", ", "(", ")"));

  private final RunOptions options;
  private final Path runDir;
  private final LocalPlatform platform;
  private final List<JavaProcess> workers = new ArrayList<>();
  private boolean stoppedAtDeadline;
  private long workStartedNanos;

  /** Every payout in paydb when the workers first started: none is added while they run. */
  private long payoutsAtStart;

  private long walSyncsAtStart;
  private String loadAtStart = "";
  private int roundsSoFar;
  private int reconciliations;
  private final List<AutoCloseable> closeFirst = new ArrayList<>();
  private CostMeter costs;
  private Costs lastCosts;

  private LocalRun(RunOptions options, Path runDir, LocalPlatform platform) {
    this.options = options;
    this.runDir = runDir;
    this.platform = platform;
  }

  /** Starts the stores and the services; {@code onReady} hears each part as it is ready. */
  static LocalRun start(RunOptions options, Path runDir, Consumer<String> onReady) {
    List<String> stub =
        List.of(
            "--fencepost.stub.hang=3s",
            "--fencepost.stub.latency.distribution=" + options.railLatencyDistribution(),
            "--fencepost.stub.latency.fixed=" + options.railLatencyFixed(),
            // A-07's 0.5 % ambiguity, split as the stub's realistic profile splits it.
            "--fencepost.stub.faults.rates.TIMEOUT_BEFORE_SETTLE=" + options.ambiguity() * 0.3,
            "--fencepost.stub.faults.rates.TIMEOUT_AFTER_SETTLE=" + options.ambiguity() * 0.4,
            "--fencepost.stub.faults.rates.ERROR_AFTER_SETTLE=" + options.ambiguity() * 0.2,
            "--fencepost.stub.faults.rates.RESET=" + options.ambiguity() * 0.1);
    LocalPlatform platform =
        LocalPlatform.builder(runDir)
            .backend(options.backend().equals("etcd") ? LockBackend.ETCD : LockBackend.POSTGRES)
            .lockPort(options.lockPort())
            .synchronousCommit(options.synchronousCommit())
            .commitDelay(options.commitDelay())
            .railTimeout(options.railTimeout())
            .railStubArgs(stub)
            .jfr(options.jfrDir())
            .productionJvm(options.productionJvm())
            .statementStatistics(options.statements())
            .onReady(onReady)
            .start();
    return new LocalRun(options, runDir, platform);
  }

  LocalPlatform platform() {
    return platform;
  }

  /** Seeds the payouts over the accounts; {@code progress} hears each account and payout. */
  void seed(LongConsumer progress) {
    PayoutIntake intake = new PayoutIntake(platform.paydb().dataSource(), "local-stack");
    Random random = new Random(42);
    int accounts = options.accounts();
    // The warm-up's payouts first: each account's oldest PENDING payout is the one offered first.
    long[] amounts = new long[options.seeded()];
    long[] perAccount = new long[accounts];
    for (int i = 0; i < amounts.length; i++) {
      amounts[i] = 100 + random.nextInt(9_900);
      perAccount[i % accounts] += amounts[i];
    }
    long done = 0;
    for (int a = 0; a < accounts; a++) {
      intake.createAccount(account(a), perAccount[a] + 1_000);
      progress.accept(++done);
    }
    for (int i = 0; i < amounts.length; i++) {
      intake.createPendingPayout(account(i % accounts), amounts[i], "EUR", "ben-" + i);
      progress.accept(++done);
    }
  }

  private static AccountId account(int index) {
    return AccountId.of(String.format("acc-%05d", index));
  }

  /**
   * Runs rounds of {@code workers} worker processes until nothing actionable is left (a round ends
   * when its workers have tried everything they may; payouts behind a held lock wait for the next
   * one), at most five rounds. {@code progress} hears the number of finished payouts.
   */
  Summary runWorkers(LongConsumer progress) throws Exception {
    // A second call (after reconciliation unblocked accounts) continues the same run's figures.
    if (workStartedNanos == 0) {
      workStartedNanos = System.nanoTime();
      payoutsAtStart = payouts(platform.paydb().dataSource());
      walSyncsAtStart = walSyncs();
      loadAtStart = loadAverage();
      if (options.benchmark()) {
        costs =
            new CostMeter(
                platform, () -> List.copyOf(workers), options.warmup(), options.payouts());
        costs.start();
      }
    }
    int rounds = 0;
    while (rounds < 5 && actionable() > 0 && !stoppedAtDeadline) {
      rounds++;
      workers.clear();
      for (int w = 0; w < options.workers(); w++) {
        workers.add(startWorker(roundsSoFar + rounds, w));
      }
      long deadline =
          workStartedNanos
              + (options.workerDeadlineSeconds() > 0
                  ? TimeUnit.SECONDS.toNanos(options.workerDeadlineSeconds())
                  : TimeUnit.MINUTES.toNanos(10L * rounds));
      while (workers.stream().anyMatch(JavaProcess::isAlive)) {
        if (System.nanoTime() > deadline) {
          // A benchmark's bound: what finished is measured, the rest is not.
          stoppedAtDeadline = true;
          workers.forEach(JavaProcess::close);
          break;
        }
        long finished = payoutsAtStart - unfinished(platform.paydb().dataSource());
        progress.accept(finished);
        if (costs != null) {
          costs.observe(finished);
        }
        Thread.sleep(PROGRESS_POLL_MILLIS);
      }
      progress.accept(finished(states()));
    }
    if (costs != null) {
      lastCosts = costs.end(finished(states()));
    }
    roundsSoFar += rounds;
    return summarize(
        Duration.ofNanos(System.nanoTime() - workStartedNanos),
        roundsSoFar,
        walSyncs() - walSyncsAtStart);
  }

  private JavaProcess startWorker(int round, int index) throws IOException {
    String id = "worker-" + round + "-" + index;
    PayoutWorkerArgs args =
        platform
            .workerArgs(id)
            .once()
            .set("fencepost.payout.concurrency", options.concurrency())
            .set("fencepost.payout.page-size", options.pageSize())
            .set("fencepost.payout.payouts-per-grant", options.payoutsPerGrant())
            .set("fencepost.payout.timings-file", runDir.resolve("timings-" + id + ".csv"));
    List<String> jvm = new ArrayList<>();
    String heap;
    if (options.productionJvm()) {
      heap = "512m"; // the JVM's own flags, as the image runs it
    } else if (options.concurrency() > 1) {
      // A long-running many-threaded worker: the optimising compiler pays for itself.
      jvm.add("-XX:+UseSerialGC");
      heap = "512m";
    } else {
      jvm.addAll(JavaProcess.LEAN_JVM);
      heap = "256m";
    }
    if (options.jfrDir() != null && index == 0) {
      Files.createDirectories(options.jfrDir());
      jvm.add(
          "-XX:StartFlightRecording=settings=profile,dumponexit=true,filename="
              + options.jfrDir().resolve(id + ".jfr"));
    }
    return platform.startWorker(id, args, jvm, heap);
  }

  /**
   * Reconciliation as its own process (the reconciliation job's jar, run once over the last hour):
   * ambiguous payouts resolved by the rail's evidence under the account lock, then every
   * discrepancy class counted. Locally the rail's settlement window is 3 s (the stub answers
   * lookups at once); in production it is 30 minutes.
   */
  Reconciliation reconcile() {
    String id = "reconciliation-" + ++reconciliations;
    Instant now = Instant.now();
    PostgresDatabase paydb = platform.paydb();
    PostgresDatabase batchdb = platform.batchdb();
    List<String> args = new ArrayList<>(LocalPlatform.postgresArgs(batchdb));
    args.add("--fencepost.paydb.url=" + paydb.jdbcUrl());
    // As paydb's runtime role, like every application of the platform (ADR 0160).
    args.add("--fencepost.paydb.username=" + paydb.runtime().username());
    args.add("--fencepost.paydb.password=" + paydb.runtime().password());
    args.add("--fencepost.reconciliation.proxy-base-url=" + platform.railProxy().baseUrl());
    args.add("--fencepost.reconciliation.rail-statement-url=" + platform.railStub().baseUrl());
    args.add("--fencepost.reconciliation.settlement-window=3s");
    args.add("--fencepost.lock.client.base-url=" + platform.lockServer().baseUrl());
    args.add("--fencepost.lock.client.owner=local-" + id);
    args.add("windowFrom=" + now.minus(Duration.ofHours(1)));
    args.add("windowTo=" + now.plusSeconds(1));
    JavaProcess job =
        LocalIdentity.withEnvironment(
                App.RECONCILIATION_JOB.process(id, runDir.resolve(id + ".log")),
                platform.identity().clientEnvironment(FencepostRole.RECONCILER))
            .environment(platform.storeEnvironment())
            .httpPort(0)
            .args(args)
            .start();
    int exit = job.awaitExit(Duration.ofMinutes(5));
    if (exit != 0) {
      throw new IllegalStateException("reconciliation exited with " + exit + "; see " + job.log());
    }
    return lastReconciliation();
  }

  private Reconciliation lastReconciliation() {
    JdbcClient pay = JdbcClient.create(platform.paydb().dataSource());
    Map<String, Object> run =
        pay.sql(
                """
                SELECT id, status, finding_count, page_count, resolved_settled, resolved_absent,
                       still_ambiguous
                  FROM reconciliation_run ORDER BY started_at DESC LIMIT 1
                """)
            .query()
            .singleRow();
    if (!"COMPLETED".equals(run.get("status"))) {
      throw new IllegalStateException("the reconciliation run ended " + run.get("status"));
    }
    Map<String, Long> counts = new LinkedHashMap<>();
    pay.sql(
            "SELECT discrepancy, finding_count FROM reconciliation_class_count"
                + " WHERE run_id = ? ORDER BY discrepancy")
        .param(run.get("id"))
        .query((rs, i) -> Map.entry(rs.getString(1), rs.getLong(2)))
        .list()
        .forEach(e -> counts.put(e.getKey(), e.getValue()));
    return new Reconciliation(
        counts,
        ((Number) run.get("finding_count")).longValue() == 0,
        ((Number) run.get("resolved_settled")).intValue(),
        ((Number) run.get("resolved_absent")).intValue(),
        ((Number) run.get("still_ambiguous")).intValue(),
        ((Number) run.get("page_count")).longValue());
  }

  /** PENDING payouts a worker may take, plus in-flight payouts a worker must recover. */
  long actionable() {
    return JdbcClient.create(platform.paydb().dataSource())
        .sql(
            """
            SELECT count(*) FROM payout p
             WHERE p.state IN ('CLAIMED','RAIL_SUBMITTED','RAIL_ACKED')
                OR (p.state = 'PENDING' AND NOT EXISTS (
                     SELECT 1 FROM payout q WHERE q.account_id = p.account_id
                        AND q.state IN ('CLAIMED','RAIL_SUBMITTED','RAIL_ACKED','RAIL_AMBIGUOUS')))
            """)
        .query(Long.class)
        .single();
  }

  /** Payouts per state, every state present (zeros included). */
  Map<String, Long> states() {
    Map<String, Long> states = new LinkedHashMap<>();
    for (PayoutState state : PayoutState.values()) {
      states.put(state.name(), 0L);
    }
    JdbcClient.create(platform.paydb().dataSource())
        .sql("SELECT state, count(*) AS n FROM payout GROUP BY state")
        .query((rs, i) -> Map.entry(rs.getString("state"), rs.getLong("n")))
        .list()
        .forEach(e -> states.put(e.getKey(), e.getValue()));
    return states;
  }

  /** Payouts that reached a state no worker acts on ({@link #FINISHED}). */
  static long finished(Map<String, Long> states) {
    return FINISHED.stream().mapToLong(s -> states.get(s.name())).sum();
  }

  /** Every payout in paydb (reads every row: once a run, not once a poll). */
  static long payouts(DataSource paydb) {
    return JdbcClient.create(paydb).sql("SELECT count(*) FROM payout").query(Long.class).single();
  }

  /** The payouts in paydb not finished yet ({@link #UNFINISHED}). */
  static long unfinished(DataSource paydb) {
    return JdbcClient.create(paydb).sql(UNFINISHED).query(Long.class).single();
  }

  Summary summarize(Duration elapsed, int rounds, long walSyncs) throws IOException {
    Map<String, Long> states = states();
    RailStubAdmin.Tally rail = platform.railStubAdmin().tally();
    LedgerAudit.Report ledger = new LedgerAudit(platform.paydb().dataSource()).check(10);
    long fencedAtProxy =
        JdbcClient.create(platform.proxydb().dataSource())
            .sql("SELECT count(*) FROM submission_rejection WHERE reason = 'FENCED'")
            .query(Long.class)
            .single();
    long finished = finished(states);
    double seconds = Math.max(0.001, elapsed.toMillis() / 1000.0);
    Measures measures = measure(walSyncs);
    return new Summary(
        options.seeded(),
        options.accounts(),
        options.workers(),
        options.backend(),
        states,
        rail.movements(),
        states.get("POSTED"),
        rail.duplicates(),
        ledger.clean(),
        fencedAtProxy + countInWorkerLogs(" FENCED_OUT"),
        rounds,
        elapsed.toMillis(),
        finished / seconds,
        measures.claimP50Millis(),
        measures.claimP99Millis(),
        finished == 0 ? 0 : (double) walSyncs / finished,
        runDir.toString(),
        measures,
        null);
  }

  private long countInWorkerLogs(String text) throws IOException {
    long count = 0;
    try (Stream<Path> files = Files.list(runDir)) {
      for (Path file :
          files.filter(f -> f.getFileName().toString().startsWith("worker-")).toList()) {
        try (Stream<String> lines = Files.lines(file)) {
          count += lines.filter(l -> l.contains(text)).count();
        }
      }
    }
    return count;
  }

  /** WAL fsyncs of the whole PostgreSQL server so far (all four databases), from pg_stat_wal. */
  long walSyncs() {
    return JdbcClient.create(platform.paydb().dataSource())
        .sql("SELECT wal_sync FROM pg_stat_wal")
        .query(Long.class)
        .single();
  }

  /** PostgreSQL's durability settings as a fresh session sees them (pools may predate a change). */
  String durability() {
    PostgresDatabase paydb = platform.paydb();
    JdbcClient jdbc =
        JdbcClient.create(
            new DriverManagerDataSource(paydb.jdbcUrl(), paydb.username(), paydb.password()));
    StringBuilder out = new StringBuilder();
    for (String setting :
        List.of(
            "fsync",
            "synchronous_commit",
            "commit_delay",
            "commit_siblings",
            "full_page_writes",
            "wal_sync_method")) {
      out.append(out.isEmpty() ? "" : " ")
          .append(setting)
          .append('=')
          .append(
              jdbc.sql("SELECT current_setting(?)").param(setting).query(String.class).single());
    }
    return out.toString();
  }

  /** Load averages from /proc/loadavg (1, 5, 15 minutes). */
  static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return parts[0] + " " + parts[1] + " " + parts[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  /** The benchmark's figures for the worker phase so far (ADR 0095). */
  Measures measure(long walSyncs) throws IOException {
    // With a cost meter, the latencies and the sustained rate are those of its measured window
    // (after the warm-up); without one, of the whole run.
    Instant[] window = costs == null ? null : costs.window().orElse(null);
    List<Long> posted = new ArrayList<>();
    Map<String, Long> attempts = new LinkedHashMap<>();
    try (Stream<Path> files = Files.list(runDir)) {
      for (Path file :
          files.filter(f -> f.getFileName().toString().startsWith("timings-")).toList()) {
        for (String line : Files.readAllLines(file)) {
          int comma = line.indexOf(',');
          if (comma < 0) {
            continue;
          }
          String[] fields = line.split(",");
          String outcome = fields[0];
          attempts.merge(outcome, 1L, Long::sum);
          if (outcome.equals("POSTED") && inWindow(window, fields)) {
            posted.add(Long.parseLong(fields[1]));
          }
        }
      }
    }
    posted.sort(null);
    JdbcClient pay = JdbcClient.create(platform.paydb().dataSource());
    double[] claim =
        pay.sql(
                """
                SELECT coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), 0),
                       coalesce(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms), 0),
                       coalesce(max(ms), 0)
                  FROM (SELECT extract(epoch FROM finished_at - claimed_at) * 1000 AS ms
                          FROM payout WHERE state = 'POSTED'
                           AND finished_at BETWEEN :from AND :to) t
                """)
            .param("from", from(window))
            .param("to", to(window))
            .query((rs, i) -> new double[] {rs.getDouble(1), rs.getDouble(2), rs.getDouble(3)})
            .single();
    // Sustained: the middle 80 % of finishes, clear of JVM start-up and of the last stragglers.
    double[] finishes =
        pay.sql(
                """
                SELECT count(*),
                       coalesce(extract(epoch FROM max(finished_at) - min(claimed_at)), 0),
                       coalesce(percentile_cont(0.1) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at)), 0),
                       coalesce(percentile_cont(0.9) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at)), 0)
                  FROM payout WHERE state IN ('POSTED','FAILED','RAIL_AMBIGUOUS','ABANDONED')
                   AND finished_at IS NOT NULL
                """)
            .query(
                (rs, i) ->
                    new double[] {
                      rs.getDouble(1), rs.getDouble(2), rs.getDouble(3), rs.getDouble(4)
                    })
            .single();
    double[] rail =
        JdbcClient.create(platform.proxydb().dataSource())
            .sql(
                """
                SELECT coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), 0),
                       coalesce(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms), 0),
                       coalesce(max(ms), 0)
                  FROM (SELECT extract(epoch FROM resolved_at - created_at) * 1000 AS ms
                          FROM rail_submission WHERE resolved_at BETWEEN :from AND :to) t
                """)
            .param("from", from(window))
            .param("to", to(window))
            .query((rs, i) -> new double[] {rs.getDouble(1), rs.getDouble(2), rs.getDouble(3)})
            .single();
    double middleSeconds = finishes[3] - finishes[2];
    double sustained = middleSeconds <= 0 ? 0 : 0.8 * finishes[0] / middleSeconds;
    if (window != null) {
      double seconds = Duration.between(window[0], window[1]).toMillis() / 1000.0;
      long inWindow =
          pay.sql(
                  """
                  SELECT count(*) FROM payout
                   WHERE state IN ('POSTED','FAILED','RAIL_AMBIGUOUS','ABANDONED')
                     AND finished_at > :from AND finished_at <= :to
                  """)
              .param("from", from(window))
              .param("to", to(window))
              .query(Long.class)
              .single();
      sustained = seconds <= 0 ? 0 : inWindow / seconds;
    }
    return new Measures(
        options.workers(),
        options.concurrency(),
        options.workers() * options.concurrency(),
        options.warmup(),
        options.railLatency(),
        durability(),
        percentile(posted, 0.5) / 1000.0,
        percentile(posted, 0.99) / 1000.0,
        posted.isEmpty() ? 0 : posted.get(posted.size() - 1) / 1000.0,
        attempts,
        claim[0],
        claim[1],
        claim[2],
        finishes[1] <= 0 ? 0 : finishes[0] / finishes[1],
        sustained,
        rail[0],
        rail[1],
        rail[2],
        walSyncs,
        loadAtStart,
        loadAverage(),
        stoppedAtDeadline,
        lastCosts);
  }

  /** An attempt line ({@code outcome,micros,endedAtEpochMillis}) that ended inside the window. */
  private static boolean inWindow(Instant[] window, String[] fields) {
    if (window == null) {
      return true;
    }
    long ended = fields.length > 2 ? Long.parseLong(fields[2]) : Long.MIN_VALUE;
    return ended >= window[0].toEpochMilli() && ended <= window[1].toEpochMilli();
  }

  private static java.sql.Timestamp from(Instant[] window) {
    return java.sql.Timestamp.from(window == null ? Instant.EPOCH : window[0]);
  }

  private static java.sql.Timestamp to(Instant[] window) {
    return java.sql.Timestamp.from(window == null ? Instant.now().plusSeconds(3600) : window[1]);
  }

  private static double percentile(List<Long> sorted, double q) {
    if (sorted.isEmpty()) {
      return 0;
    }
    int index = (int) Math.ceil(q * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
  }

  /** Closes {@code part} before the platform it runs on (the operator console's stack). */
  void onClose(AutoCloseable part) {
    closeFirst.add(part);
  }

  @Override
  public void close() {
    workers.forEach(JavaProcess::close);
    for (AutoCloseable part : closeFirst) {
      try {
        part.close();
      } catch (Exception e) {
        // Stopping anyway: the platform below still has to go.
      }
    }
    platform.close();
  }
}
