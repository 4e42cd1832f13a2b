package dev.fencepost.localstack;

import dev.fencepost.batch.BatchDefaults;
import dev.fencepost.launcher.etcd.EtcdCluster;
import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.lock.client.impl.DefaultLockClient;
import dev.fencepost.lock.client.impl.DefaultLockTemplate;
import dev.fencepost.lock.client.impl.LockClientSettings;
import dev.fencepost.lock.client.impl.MicrometerLockClientMetrics;
import dev.fencepost.lockserver.LockServerApplication;
import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.LedgerAudit;
import dev.fencepost.payment.PayoutIntake;
import dev.fencepost.payoutjob.PayoutJobApplication;
import dev.fencepost.railproxy.RailProxyApplication;
import dev.fencepost.railstub.RailStubApplication;
import dev.fencepost.reconciliation.Reconciler;
import dev.fencepost.reconciliation.ReconciliationReport;
import dev.fencepost.reconciliation.ReconciliationSettings;
import dev.fencepost.reconciliation.ReconciliationWindow;
import dev.fencepost.reconciliation.ResolutionSummary;
import dev.fencepost.reconciliation.Severity;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code ./fencepost run}: the whole payout platform on one machine (issue 7). An embedded
 * PostgreSQL on loopback with lockdb, paydb, proxydb and batchdb; the lock server (PostgreSQL
 * backend, or etcd when asked), the rail stub (0.5 % ambiguous outcomes, A-07) and the rail proxy
 * in this JVM; synthetic accounts and payouts seeded with {@code PaydbFixtures}; then the payout
 * job as {@code --workers} separate JVMs racing over the same payouts (UC-02) until nothing
 * actionable is left, and a summary read from the stores themselves: payouts per state, rail
 * movements against POSTED payouts, duplicates from the stub's ground truth (must be 0, INV-02),
 * the ledger assertions (INV-03), fenced-out refusals, elapsed time and throughput. See
 * docs/local-platform.md.
 *
 * <p>Workers are this same program started with {@code --worker}: it runs payoutJob once ({@code
 * PayoutJobApplication}) and exits with the job's exit code.
 */
public final class LocalStack implements AutoCloseable {

  /**
   * Boot auto-configuration that must stay out of the in-process servers (Batch is on the path).
   */
  static final String NOT_A_JOB =
      "org.springframework.boot.batch.autoconfigure.BatchAutoConfiguration,"
          + "org.springframework.boot.batch.jdbc.autoconfigure.BatchJdbcAutoConfiguration,"
          + "org.springframework.boot.batch.autoconfigure.BatchJobLauncherAutoConfiguration,"
          + "dev.fencepost.batch.BatchSupportAutoConfiguration";

  static final String NO_DATABASE =
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration,"
          + "org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration";

  private final Options options;
  private final EmbeddedPostgresServer postgres;
  private final PostgresDatabase lockdb;
  private final PostgresDatabase paydb;
  private final PostgresDatabase proxydb;
  private final PostgresDatabase batchdb;
  private final EtcdCluster etcd;
  private final ConfigurableApplicationContext lockServer;
  private final ConfigurableApplicationContext railStub;
  private final ConfigurableApplicationContext railProxy;
  private final Path logDir;
  private final HttpClient http = HttpClient.newHttpClient();

  private LocalStack(Options options) throws IOException {
    this.options = options;
    this.logDir = Files.createTempDirectory("fencepost-run-");
    this.postgres = EmbeddedPostgresServer.startDedicated();
    this.lockdb = postgres.createDatabase("lockdb");
    this.paydb =
        postgres
            .createDatabase("paydb")
            .applyChangelog("db/changelog/paydb/db.changelog-master.yaml");
    this.proxydb = postgres.createDatabase("proxydb");
    this.batchdb =
        postgres
            .createDatabase("batchdb")
            .applyChangelog("db/changelog/batchdb/db.changelog-master.yaml");
    if (options.synchronousCommit()) {
      // Embedded PostgreSQL runs with synchronous_commit=off on its command line, which lets a
      // commit return before its WAL is flushed: fsyncs per payout would look better than
      // production's. A role setting beats the command line for every session opened from now on,
      // so it is set before any server's pool connects.
      JdbcClient.create(paydb.dataSource())
          .sql("ALTER ROLE \"" + paydb.username() + "\" SET synchronous_commit = on")
          .update();
    }
    List<String> lockArgs =
        new ArrayList<>(
            List.of(
                "--server.port=" + options.lockPort(),
                "--spring.application.name=lock-server",
                "--spring.datasource.url=" + lockdb.jdbcUrl(),
                "--spring.datasource.username=" + lockdb.username(),
                "--spring.datasource.password=" + lockdb.password(),
                "--spring.liquibase.change-log=classpath:db/changelog/lockdb/db.changelog-master.yaml",
                "--spring.autoconfigure.exclude=" + NOT_A_JOB));
    if (options.backend().equals("etcd")) {
      this.etcd = EtcdCluster.builder().members(1).start();
      lockArgs.add("--fencepost.lock.backend=etcd");
      lockArgs.add("--fencepost.lock.etcd.endpoints=" + etcd.endpoints());
    } else {
      this.etcd = null;
    }
    this.lockServer = server(LockServerApplication.class, lockArgs);
    this.railStub =
        server(
            RailStubApplication.class,
            List.of(
                "--server.port=0",
                "--spring.application.name=rail-stub",
                "--spring.autoconfigure.exclude=" + NOT_A_JOB + "," + NO_DATABASE,
                "--fencepost.stub.hang=3s",
                "--fencepost.stub.latency.distribution=" + options.railLatencyDistribution(),
                "--fencepost.stub.latency.fixed=" + options.railLatencyFixed(),
                // A-07's 0.5 % ambiguity, split as the stub's realistic profile splits it.
                "--fencepost.stub.faults.rates.TIMEOUT_BEFORE_SETTLE=" + options.ambiguity() * 0.3,
                "--fencepost.stub.faults.rates.TIMEOUT_AFTER_SETTLE=" + options.ambiguity() * 0.4,
                "--fencepost.stub.faults.rates.ERROR_AFTER_SETTLE=" + options.ambiguity() * 0.2,
                "--fencepost.stub.faults.rates.RESET=" + options.ambiguity() * 0.1));
    this.railProxy =
        server(
            RailProxyApplication.class,
            List.of(
                "--server.port=0",
                "--spring.application.name=rail-proxy",
                "--spring.datasource.url=" + proxydb.jdbcUrl(),
                "--spring.datasource.username=" + proxydb.username(),
                "--spring.datasource.password=" + proxydb.password(),
                "--spring.liquibase.change-log=classpath:db/changelog/proxydb/db.changelog-master.yaml",
                "--spring.autoconfigure.exclude=" + NOT_A_JOB,
                "--fencepost.rail.base-url=" + url(railStub),
                "--fencepost.rail.timeout=" + options.railTimeout()));
  }

  /** PostgreSQL's durability settings as the benchmark ran them. */
  String durability() {
    // A fresh session: pooled ones may predate the role setting.
    JdbcClient jdbc =
        JdbcClient.create(
            new org.springframework.jdbc.datasource.DriverManagerDataSource(
                paydb.jdbcUrl(), paydb.username(), paydb.password()));
    StringBuilder out = new StringBuilder();
    for (String setting :
        List.of("fsync", "synchronous_commit", "full_page_writes", "wal_sync_method")) {
      out.append(out.isEmpty() ? "" : " ")
          .append(setting)
          .append('=')
          .append(
              jdbc.sql("SELECT current_setting('" + setting + "')").query(String.class).single());
    }
    return out.toString();
  }

  private ConfigurableApplicationContext server(Class<?> application, List<String> args) {
    List<String> all = new ArrayList<>(args);
    all.add("--server.address=127.0.0.1");
    all.add("--spring.main.banner-mode=off");
    // Our shutdown hook closes the servers before PostgreSQL; theirs would race it.
    all.add("--spring.main.register-shutdown-hook=false");
    if (!options.jsonLogs()) {
      all.add("--logging.structured.format.console=");
      // The summary is the output; the servers' warnings (e.g. a renew racing a fast release) are
      // noise here. --json-logs shows everything.
      all.add("--logging.level.root=ERROR");
    }
    return new SpringApplicationBuilder(application).run(all.toArray(String[]::new));
  }

  private final List<Process> workers = new java.util.concurrent.CopyOnWriteArrayList<>();
  private boolean stoppedAtDeadline;
  private long workStartedNanos;
  private long walSyncsAtStart;
  private String loadAtStart = "";
  private Recording servicesRecording;
  private int roundsSoFar;

  /** Starts the services (no payouts yet); the caller closes it. */
  public static LocalStack start(Options options) throws IOException {
    return new LocalStack(options);
  }

  public String lockServerUrl() {
    return url(lockServer);
  }

  public String proxyUrl() {
    return url(railProxy);
  }

  public String stubUrl() {
    return url(railStub);
  }

  public int postgresPort() {
    return postgres.port();
  }

  /** Seeds {@code options.payouts()} PENDING payouts over {@code options.accounts()} accounts. */
  public void seed() {
    PayoutIntake fixtures = new PayoutIntake(paydb.dataSource(), "local-stack");
    Random random = new Random(42);
    int accounts = options.accounts();
    long[] amounts = new long[options.payouts()];
    long[] perAccount = new long[accounts];
    for (int i = 0; i < amounts.length; i++) {
      amounts[i] = 100 + random.nextInt(9_900);
      perAccount[i % accounts] += amounts[i];
    }
    for (int a = 0; a < accounts; a++) {
      fixtures.createAccount(account(a), perAccount[a] + 1_000);
    }
    for (int i = 0; i < amounts.length; i++) {
      fixtures.createPendingPayout(account(i % accounts), amounts[i], "EUR", "ben-" + i);
    }
  }

  private static AccountId account(int index) {
    return AccountId.of(String.format("acc-%05d", index));
  }

  /**
   * Runs rounds of {@code workers} worker processes until nothing actionable is left (a run ends
   * when it has tried everything it may; payouts behind a held lock wait for the next round), at
   * most five rounds. Prints progress every two seconds.
   */
  public Summary runWorkers() throws Exception {
    // A second call (after reconciliation unblocked accounts) continues the same run's figures.
    if (workStartedNanos == 0) {
      workStartedNanos = System.nanoTime();
      walSyncsAtStart = walSyncs();
      loadAtStart = loadAverage();
      if (options.jfrDir() != null && servicesRecording == null) {
        // The lock server, stub and proxy run in this JVM: one recording covers all three.
        servicesRecording = new Recording(Configuration.getConfiguration("profile"));
        servicesRecording.setName("local-stack-services");
        servicesRecording.start();
      }
    }
    int rounds = 0;
    Thread progress = new Thread(this::printProgress, "progress");
    progress.setDaemon(true);
    progress.start();
    try {
      while (rounds < 5 && actionable() > 0 && !stoppedAtDeadline) {
        rounds++;
        workers.clear();
        for (int w = 0; w < options.workers(); w++) {
          workers.add(startWorker(rounds, w));
        }
        long deadline =
            workStartedNanos
                + (options.workerDeadlineSeconds() > 0
                    ? TimeUnit.SECONDS.toNanos(options.workerDeadlineSeconds())
                    : TimeUnit.MINUTES.toNanos(10L * rounds));
        for (Process worker : workers) {
          long left = deadline - System.nanoTime();
          if (!worker.waitFor(Math.max(0, left), TimeUnit.NANOSECONDS)) {
            stoppedAtDeadline = true;
          }
        }
        if (stoppedAtDeadline) {
          // A benchmark's bound on a shared machine: what finished is measured, the rest is not.
          stopWorkers();
        }
      }
    } finally {
      progress.interrupt();
    }
    roundsSoFar += rounds;
    if (servicesRecording != null) {
      Files.createDirectories(options.jfrDir());
      servicesRecording.dump(options.jfrDir().resolve("services.jfr"));
    }
    return summarize(
        Duration.ofNanos(System.nanoTime() - workStartedNanos),
        roundsSoFar,
        walSyncs() - walSyncsAtStart);
  }

  /** Ends the worker processes still running: politely, then forcibly. */
  void stopWorkers() throws InterruptedException {
    for (Process worker : workers) {
      worker.destroy();
    }
    for (Process worker : workers) {
      if (!worker.waitFor(20, TimeUnit.SECONDS)) {
        worker.destroyForcibly();
      }
    }
  }

  /** WAL fsyncs of the whole PostgreSQL server so far (all four databases), from pg_stat_wal. */
  long walSyncs() {
    return JdbcClient.create(paydb.dataSource())
        .sql("SELECT wal_sync FROM pg_stat_wal")
        .query(Long.class)
        .single();
  }

  /** Percentiles of claim-to-finish time of POSTED payouts, in milliseconds. */
  double[] latencyMillis() {
    return JdbcClient.create(paydb.dataSource())
        .sql(
            """
            SELECT coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), 0) AS p50,
                   coalesce(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms), 0) AS p99
              FROM (SELECT extract(epoch FROM finished_at - claimed_at) * 1000 AS ms
                      FROM payout WHERE state = 'POSTED') t
            """)
        .query((rs, i) -> new double[] {rs.getDouble("p50"), rs.getDouble("p99")})
        .single();
  }

  private Process startWorker(int round, int index) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    if (options.concurrency() > 1) {
      // A long-running many-threaded worker: the optimising compiler pays for itself.
      command.addAll(List.of("-Xmx512m", "-XX:+UseSerialGC"));
    } else {
      command.addAll(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
    }
    if (options.jfrDir() != null && index == 0) {
      Files.createDirectories(options.jfrDir());
      command.add(
          "-XX:StartFlightRecording=settings=profile,dumponexit=true,filename="
              + options.jfrDir().resolve("worker-" + round + "-" + index + ".jfr"));
    }
    String classPath = System.getProperty("java.class.path");
    if (!classPath.contains(File.pathSeparator) && classPath.endsWith(".jar")) {
      command.addAll(List.of("-jar", classPath));
    } else {
      command.addAll(List.of("-cp", classPath, LocalStack.class.getName()));
    }
    command.add("--worker");
    command.add("--spring.main.web-application-type=none");
    command.add("--spring.application.name=payout-job");
    command.add("--spring.main.banner-mode=off");
    command.add("--logging.structured.format.console=");
    command.add("--fencepost.payout.exit-when-done=true");
    command.add("--fencepost.payout.worker-id=worker-" + round + "-" + index);
    command.add("--fencepost.payout.concurrency=" + options.concurrency());
    command.add("--fencepost.payout.page-size=" + options.pageSize());
    command.add(
        "--fencepost.payout.timings-file="
            + logDir.resolve("timings-" + round + "-" + index + ".csv"));
    command.add("--spring.datasource.url=" + batchdb.jdbcUrl());
    command.add("--spring.datasource.username=" + batchdb.username());
    command.add("--spring.datasource.password=" + batchdb.password());
    // Other applications' application.yaml files share this class path: name ours explicitly.
    command.add("--spring.liquibase.change-log=" + BatchDefaults.BATCHDB_CHANGELOG);
    command.add("--fencepost.payout.paydb.url=" + paydb.jdbcUrl());
    command.add("--fencepost.payout.paydb.username=" + paydb.username());
    command.add("--fencepost.payout.paydb.password=" + paydb.password());
    command.add("--fencepost.payout.proxy.base-url=" + proxyUrl());
    command.add("--fencepost.lock.client.base-url=" + lockServerUrl());
    File log = logDir.resolve("worker-" + round + "-" + index + ".log").toFile();
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log))
        .start();
  }

  /** PENDING payouts a worker may take, plus in-flight payouts a worker must recover. */
  long actionable() {
    JdbcClient jdbc = JdbcClient.create(paydb.dataSource());
    long inFlight =
        jdbc.sql(
                "SELECT count(*) FROM payout WHERE state IN ('CLAIMED','RAIL_SUBMITTED','RAIL_ACKED')")
            .query(Long.class)
            .single();
    long pendingFree =
        jdbc.sql(
                """
                SELECT count(*) FROM payout p WHERE p.state = 'PENDING' AND NOT EXISTS (
                  SELECT 1 FROM payout q WHERE q.account_id = p.account_id
                   AND q.state IN ('CLAIMED','RAIL_SUBMITTED','RAIL_ACKED','RAIL_AMBIGUOUS'))
                """)
            .query(Long.class)
            .single();
    return inFlight + pendingFree;
  }

  Map<String, Long> states() {
    Map<String, Long> states = new LinkedHashMap<>();
    for (String state :
        List.of(
            "PENDING",
            "CLAIMED",
            "RAIL_SUBMITTED",
            "RAIL_ACKED",
            "RAIL_AMBIGUOUS",
            "POSTED",
            "FAILED",
            "ABANDONED")) {
      states.put(state, 0L);
    }
    JdbcClient.create(paydb.dataSource())
        .sql("SELECT state, count(*) AS n FROM payout GROUP BY state")
        .query((rs, i) -> Map.entry(rs.getString("state"), rs.getLong("n")))
        .list()
        .forEach(e -> states.put(e.getKey(), e.getValue()));
    return states;
  }

  private void printProgress() {
    try {
      while (!Thread.currentThread().isInterrupted()) {
        Map<String, Long> s = states();
        System.out.printf(
            "  progress: %d PENDING, %d in flight, %d POSTED, %d FAILED, %d RAIL_AMBIGUOUS%n",
            s.get("PENDING"),
            s.get("CLAIMED") + s.get("RAIL_SUBMITTED") + s.get("RAIL_ACKED"),
            s.get("POSTED"),
            s.get("FAILED"),
            s.get("RAIL_AMBIGUOUS"));
        Thread.sleep(2_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      // The stack is closing; stop reporting.
    }
  }

  /**
   * The reconciliation job's work after the workers (issue 8, UC-05, UC-07): ambiguous payouts are
   * resolved by the rail's evidence under the account lock, then every discrepancy class is
   * counted. Locally the rail's settlement window is short (the stub answers lookups at once); in
   * production it is 30 minutes.
   */
  public Reconciliation reconcile() {
    LockClientSettings settings =
        new LockClientSettings(
            URI.create(lockServerUrl()),
            "local-reconciler",
            Duration.ofSeconds(15),
            0.3,
            Duration.ofSeconds(5),
            Duration.ofSeconds(1),
            Duration.ofSeconds(3),
            new LockClientSettings.Retry(
                3, Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(5)));
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    DefaultLockClient client =
        new DefaultLockClient(settings, new MicrometerLockClientMetrics(meters), List.of());
    client.start();
    try {
      Reconciler reconciler =
          Reconciler.create(
              paydb.dataSource(),
              proxyUrl(),
              stubUrl(),
              new DefaultLockTemplate(client, Duration.ofSeconds(5)),
              meters,
              ReconciliationSettings.defaults("local-platform")
                  .withSettlementWindow(Duration.ofSeconds(3)));
      Instant now = Instant.now();
      ReconciliationReport report =
          reconciler.run(
              new ReconciliationWindow(now.minus(Duration.ofHours(1)), now.plusSeconds(1)),
              "local-platform");
      return Reconciliation.of(report);
    } finally {
      client.stop();
    }
  }

  /**
   * What reconciliation found and resolved, for the summary.
   *
   * @param counts every discrepancy class with its count, zeros included
   * @param clean no discrepancy of any class
   * @param settled ambiguous payouts the rail showed settled (now RAIL_ACKED, then posted)
   * @param absent ambiguous payouts the rail showed absent after its settlement window (FAILED)
   * @param stillAmbiguous ambiguous payouts left for a later run (no evidence yet)
   * @param pages findings of page severity (duplicates, imbalance, ...): must be 0
   */
  public record Reconciliation(
      Map<String, Long> counts,
      boolean clean,
      int settled,
      int absent,
      int stillAmbiguous,
      long pages) {

    /** This (later) run's findings, with the resolutions of an earlier run of the same session. */
    Reconciliation after(Reconciliation earlier) {
      return new Reconciliation(
          counts, clean, settled + earlier.settled, absent + earlier.absent, stillAmbiguous, pages);
    }

    static Reconciliation of(ReconciliationReport report) {
      Map<String, Long> counts = new LinkedHashMap<>();
      report.counts().forEach((discrepancy, n) -> counts.put(discrepancy.name(), n));
      ResolutionSummary r = report.resolutions();
      return new Reconciliation(
          counts,
          report.clean(),
          r.settled(),
          r.absent(),
          r.awaitingEvidence() + r.lookupUnavailable() + r.skipped(),
          report.count(Severity.PAGE));
    }

    String text() {
      StringBuilder out = new StringBuilder("  reconciliation  ");
      out.append(clean ? "clean" : "FINDINGS")
          .append(
              String.format(
                  " (ambiguous payouts resolved by the rail's evidence: %d settled, %d absent)%n",
                  settled, absent));
      counts.forEach(
          (discrepancy, n) -> {
            if (n > 0) {
              out.append(String.format("    %-40s %6d%n", discrepancy, n));
            }
          });
      return out.toString();
    }
  }

  @SuppressWarnings("unchecked")
  Summary summarize(Duration elapsed, int rounds, long walSyncs) throws Exception {
    Map<String, Long> states = states();
    String body =
        http.send(
                HttpRequest.newBuilder(URI.create(stubUrl() + "/rail/admin/movements")).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    Map<String, Object> movementsAnswer = JsonMapper.builder().build().readValue(body, Map.class);
    List<Map<String, Object>> movements =
        (List<Map<String, Object>>) movementsAnswer.getOrDefault("movements", List.of());
    Map<String, Integer> perReference = new LinkedHashMap<>();
    for (Map<String, Object> movement : movements) {
      perReference.merge(String.valueOf(movement.get("clientReference")), 1, Integer::sum);
    }
    long duplicates = perReference.values().stream().filter(n -> n > 1).mapToLong(n -> n - 1).sum();
    LedgerAudit.Report ledger = new LedgerAudit(paydb.dataSource()).check(10);
    long fencedAtProxy =
        JdbcClient.create(proxydb.dataSource())
            .sql("SELECT count(*) FROM submission_rejection WHERE reason = 'FENCED'")
            .query(Long.class)
            .single();
    long fencedOut = fencedAtProxy + countInWorkerLogs(" FENCED_OUT");
    long finished =
        states.get("POSTED")
            + states.get("FAILED")
            + states.get("RAIL_AMBIGUOUS")
            + states.get("ABANDONED");
    double seconds = Math.max(0.001, elapsed.toMillis() / 1000.0);
    double[] latency = latencyMillis();
    return new Summary(
        options.payouts(),
        options.accounts(),
        options.workers(),
        options.backend(),
        states,
        movements.size(),
        states.get("POSTED"),
        duplicates,
        ledger.clean(),
        fencedOut,
        rounds,
        elapsed.toMillis(),
        finished / seconds,
        latency[0],
        latency[1],
        finished == 0 ? 0 : (double) walSyncs / finished,
        logDir.toString(),
        measure(walSyncs),
        null);
  }

  /** Load averages from /proc/loadavg (1, 5, 15 minutes): the machine is shared. */
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
    List<Long> posted = new ArrayList<>();
    Map<String, Long> attempts = new LinkedHashMap<>();
    try (var files = Files.list(logDir)) {
      for (Path file :
          files.filter(f -> f.getFileName().toString().startsWith("timings-")).toList()) {
        for (String line : Files.readAllLines(file)) {
          int comma = line.indexOf(',');
          if (comma < 0) {
            continue;
          }
          String outcome = line.substring(0, comma);
          attempts.merge(outcome, 1L, Long::sum);
          if (outcome.equals("POSTED")) {
            posted.add(Long.parseLong(line.substring(comma + 1)));
          }
        }
      }
    }
    posted.sort(null);
    JdbcClient pay = JdbcClient.create(paydb.dataSource());
    double[] claim =
        pay.sql(
                """
                SELECT coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), 0),
                       coalesce(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms), 0),
                       coalesce(max(ms), 0)
                  FROM (SELECT extract(epoch FROM finished_at - claimed_at) * 1000 AS ms
                          FROM payout WHERE state = 'POSTED') t
                """)
            .query((rs, i) -> new double[] {rs.getDouble(1), rs.getDouble(2), rs.getDouble(3)})
            .single();
    // Sustained: the middle 80 % of finishes, clear of JVM start-up and of the last stragglers.
    double[] window =
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
        JdbcClient.create(proxydb.dataSource())
            .sql(
                """
                SELECT coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), 0),
                       coalesce(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms), 0),
                       coalesce(max(ms), 0)
                  FROM (SELECT extract(epoch FROM resolved_at - created_at) * 1000 AS ms
                          FROM rail_submission WHERE resolved_at IS NOT NULL) t
                """)
            .query((rs, i) -> new double[] {rs.getDouble(1), rs.getDouble(2), rs.getDouble(3)})
            .single();
    double middleSeconds = window[3] - window[2];
    return new Measures(
        options.workers(),
        options.concurrency(),
        options.workers() * options.concurrency(),
        options.railLatency(),
        durability(),
        percentile(posted, 0.5) / 1000.0,
        percentile(posted, 0.99) / 1000.0,
        posted.isEmpty() ? 0 : posted.get(posted.size() - 1) / 1000.0,
        attempts,
        claim[0],
        claim[1],
        claim[2],
        window[1] <= 0 ? 0 : window[0] / window[1],
        middleSeconds <= 0 ? 0 : 0.8 * window[0] / middleSeconds,
        rail[0],
        rail[1],
        rail[2],
        walSyncs,
        loadAtStart,
        loadAverage(),
        stoppedAtDeadline);
  }

  private static double percentile(List<Long> sorted, double q) {
    if (sorted.isEmpty()) {
      return 0;
    }
    int index = (int) Math.ceil(q * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
  }

  /**
   * What the benchmark reads from a run (ADR 0095, docs/benchmarks.md).
   *
   * @param processes worker processes per round
   * @param threadsPerProcess payout threads in each ({@code fencepost.payout.concurrency})
   * @param workers processes x threads: the benchmark's "workers"
   * @param railLatency the rail stub's latency shape
   * @param durability PostgreSQL's fsync, synchronous_commit, full_page_writes, wal_sync_method
   * @param attemptP50Millis median time of attempts that ended POSTED, lock acquire to release
   * @param attemptP99Millis 99th percentile of the same
   * @param attemptMaxMillis the slowest of them
   * @param attempts attempts by outcome, every worker thread together
   * @param claimP50Millis median claim-to-POSTED (paydb timestamps)
   * @param claimP99Millis 99th percentile of the same
   * @param claimMaxMillis the slowest of them
   * @param steadyPayoutsPerSecond finished payouts over first claim to last finish
   * @param sustainedPayoutsPerSecond the middle 80 % of finishes over the time they took
   * @param railP50Millis the rail as the proxy saw it: intent recorded to outcome recorded
   * @param railP99Millis 99th percentile of the same
   * @param railMaxMillis the slowest of them
   * @param walSyncs WAL fsyncs of the whole server over the worker phase (pg_stat_wal.wal_sync)
   * @param loadAtStart load averages when the workers started
   * @param loadAtEnd load averages when they ended
   * @param stoppedAtDeadline the workers were stopped at {@code --worker-deadline}, unfinished
   */
  public record Measures(
      int processes,
      int threadsPerProcess,
      int workers,
      String railLatency,
      String durability,
      double attemptP50Millis,
      double attemptP99Millis,
      double attemptMaxMillis,
      Map<String, Long> attempts,
      double claimP50Millis,
      double claimP99Millis,
      double claimMaxMillis,
      double steadyPayoutsPerSecond,
      double sustainedPayoutsPerSecond,
      double railP50Millis,
      double railP99Millis,
      double railMaxMillis,
      long walSyncs,
      String loadAtStart,
      String loadAtEnd,
      boolean stoppedAtDeadline) {

    String text() {
      return String.format(
          "  benchmark       %d workers = %d process(es) x %d thread(s), rail %s%n"
              + "    attempt (lock acquire to release) of POSTED payouts: p50 %.1f ms, p99 %.1f ms,"
              + " max %.1f ms%n"
              + "    claim to POSTED (paydb): p50 %.1f ms, p99 %.1f ms, max %.1f ms%n"
              + "    throughput: %.1f payouts/s first claim to last finish, %.1f sustained"
              + " (middle 80%% of finishes)%n"
              + "    rail as the proxy saw it: p50 %.1f ms, p99 %.1f ms, max %.1f ms%n"
              + "    WAL fsyncs %d; %s%n"
              + "    attempts %s; load average %s at start, %s at end%s%n",
          workers,
          processes,
          threadsPerProcess,
          railLatency,
          attemptP50Millis,
          attemptP99Millis,
          attemptMaxMillis,
          claimP50Millis,
          claimP99Millis,
          claimMaxMillis,
          steadyPayoutsPerSecond,
          sustainedPayoutsPerSecond,
          railP50Millis,
          railP99Millis,
          railMaxMillis,
          walSyncs,
          durability,
          attempts,
          loadAtStart,
          loadAtEnd,
          stoppedAtDeadline ? "; STOPPED AT THE WORKER DEADLINE, unfinished" : "");
    }
  }

  private long countInWorkerLogs(String needle) throws IOException {
    long count = 0;
    try (var files = Files.list(logDir)) {
      for (Path file : files.toList()) {
        try (var lines = Files.lines(file)) {
          count += lines.filter(line -> line.contains(needle)).count();
        }
      }
    }
    return count;
  }

  @Override
  public void close() {
    try {
      stopWorkers();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (ConfigurableApplicationContext context : List.of(railProxy, railStub, lockServer)) {
      try {
        context.close();
      } catch (RuntimeException e) {
        // keep closing the others
      }
    }
    if (etcd != null) {
      etcd.close();
    }
    postgres.close();
  }

  private static String url(ConfigurableApplicationContext context) {
    return "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
  }

  /**
   * What a run did, from the stores: paydb states, the stub's movements (the ground truth), the
   * ledger assertions and the guards' refusals.
   *
   * @param payouts payouts seeded
   * @param accounts accounts seeded
   * @param workers worker processes per round
   * @param backend lock backend
   * @param states payouts per state at the end
   * @param railMovements movements the rail received
   * @param posted POSTED payouts (each should be exactly one movement)
   * @param duplicates movements beyond the first for a client reference (INV-02: must be 0)
   * @param ledgerBalanced INV-03 assertions all clean
   * @param fencedOut refusals of a stale token at either guard
   * @param rounds worker rounds run
   * @param elapsedMillis from the first worker's start to the last one's end (a reconciliation
   *     between two rounds of workers included)
   * @param payoutsPerSecond payouts brought to POSTED, FAILED or RAIL_AMBIGUOUS per second
   * @param p50Millis median claim-to-POSTED time of POSTED payouts (paydb timestamps)
   * @param p99Millis 99th percentile of the same
   * @param walSyncsPerPayout PostgreSQL WAL fsyncs (pg_stat_wal, whole server) per finished payout
   * @param logDir where the worker logs are
   * @param measures the benchmark's figures (latency of attempts, throughput windows, the rail)
   * @param reconciliation what reconciliation found after the workers (null before it ran)
   */
  public record Summary(
      int payouts,
      int accounts,
      int workers,
      String backend,
      Map<String, Long> states,
      long railMovements,
      long posted,
      long duplicates,
      boolean ledgerBalanced,
      long fencedOut,
      int rounds,
      long elapsedMillis,
      double payoutsPerSecond,
      double p50Millis,
      double p99Millis,
      double walSyncsPerPayout,
      String logDir,
      Measures measures,
      Reconciliation reconciliation) {

    /** The same summary with the reconciliation that followed the workers. */
    public Summary with(Reconciliation reconciliation) {
      return new Summary(
          payouts,
          accounts,
          workers,
          backend,
          states,
          railMovements,
          posted,
          duplicates,
          ledgerBalanced,
          fencedOut,
          rounds,
          elapsedMillis,
          payoutsPerSecond,
          p50Millis,
          p99Millis,
          walSyncsPerPayout,
          logDir,
          measures,
          reconciliation);
    }

    /** The run kept the promises: no duplicate, balanced ledger, no page-level finding. */
    public boolean healthy() {
      return duplicates == 0
          && ledgerBalanced
          && (reconciliation == null || reconciliation.pages() == 0);
    }

    String text() {
      StringBuilder out = new StringBuilder();
      out.append(
          String.format(
              "%nFencepost local run: %d payouts over %d accounts, %d workers, %s lock backend%n",
              payouts, accounts, workers, backend));
      out.append("  payouts by final state:\n");
      states.forEach(
          (state, n) -> {
            if (n > 0) {
              out.append(String.format("    %-15s %6d%n", state, n));
            }
          });
      out.append(
          String.format(
              "  rail movements  %6d   against %d POSTED payouts"
                  + " (the rest moved money under an ambiguous outcome)%n",
              railMovements, posted));
      out.append(String.format("  duplicates      %6d   (must be 0)%n", duplicates));
      out.append(String.format("  ledger balanced %6s%n", ledgerBalanced ? "yes" : "NO"));
      out.append(String.format("  fenced out      %6d%n", fencedOut));
      out.append(
          String.format(
              "  elapsed         %6.1f s in %d round(s), %.1f payouts/s%n",
              elapsedMillis / 1000.0, rounds, payoutsPerSecond));
      out.append(
          String.format(
              "  claim to POSTED p50 %.0f ms, p99 %.0f ms; WAL fsyncs per payout %.1f%n",
              p50Millis, p99Millis, walSyncsPerPayout));
      if (measures != null) {
        out.append(measures.text());
      }
      if (reconciliation != null) {
        out.append(reconciliation.text());
      }
      out.append("  worker logs     ").append(logDir).append('\n');
      if (states.getOrDefault("PENDING", 0L) > 0) {
        out.append(
            "  (PENDING payouts wait behind an ambiguous payout of their account: one in flight per"
                + " account, A-15; the reconciler resolves ambiguity)\n");
      }
      return out.toString();
    }

    String json() {
      return JsonMapper.builder().build().writerWithDefaultPrettyPrinter().writeValueAsString(this);
    }
  }

  /**
   * Command-line options.
   *
   * @param payouts payouts to seed
   * @param accounts accounts to spread them over
   * @param workers worker processes per round
   * @param backend {@code postgres} or {@code etcd}
   * @param keepRunning leave the services up after the summary, until Ctrl-C
   * @param summaryJson write the summary as JSON here (null: don't)
   * @param lockPort the lock server's port (0: any free port)
   * @param jsonLogs print the servers' structured JSON logs
   * @param ambiguity the rail's rate of ambiguous outcomes
   * @param concurrency payout threads in each worker process ({@code fencepost.payout.concurrency})
   * @param railLatency the rail stub's latency: {@code <n>ms} fixed, or {@code a07} (lognormal,
   *     median 300 ms, p99 3 s, with the proxy's rail timeout at A-07's 10 s)
   * @param synchronousCommit turn PostgreSQL's synchronous_commit on (embedded starts it off)
   * @param jfrDir record JFR profiles of the first worker process and of this JVM's services here
   *     (null: don't)
   * @param pageSize candidates per query in the workers ({@code fencepost.payout.page-size})
   * @param railTimeout the proxy's rail timeout (null: 1 s, or A-07's 10 s with {@code a07})
   * @param workerDeadlineSeconds stop the workers this long after the first started, and summarise
   *     what finished (0: ten minutes a round)
   */
  public record Options(
      int payouts,
      int accounts,
      int workers,
      String backend,
      boolean keepRunning,
      Path summaryJson,
      int lockPort,
      boolean jsonLogs,
      double ambiguity,
      int concurrency,
      String railLatency,
      boolean synchronousCommit,
      Path jfrDir,
      int pageSize,
      String railTimeout,
      int workerDeadlineSeconds) {

    /** The local platform's options, with the benchmark's at their defaults. */
    public Options(
        int payouts,
        int accounts,
        int workers,
        String backend,
        boolean keepRunning,
        Path summaryJson,
        int lockPort,
        boolean jsonLogs,
        double ambiguity) {
      this(
          payouts,
          accounts,
          workers,
          backend,
          keepRunning,
          summaryJson,
          lockPort,
          jsonLogs,
          ambiguity,
          1,
          "0ms",
          false,
          null,
          100,
          null,
          0);
    }

    /** The rail proxy's timeout towards the rail. */
    public String railTimeout() {
      if (railTimeout != null) {
        return railTimeout;
      }
      // Short locally so ambiguous payouts end quickly; A-07's 10 s budget when the rail is as
      // slow as A-07 says, or its tail would time out.
      return railLatency.equals("a07") ? "10s" : "1s";
    }

    static Options defaults() {
      return new Options(1_000, 100, 4, "postgres", false, null, 8081, false, 0.005);
    }

    String railLatencyDistribution() {
      return railLatency.equals("a07") ? "LOGNORMAL" : "FIXED";
    }

    String railLatencyFixed() {
      return railLatency.equals("a07") ? "0ms" : railLatency;
    }

    static Options parse(String[] args) {
      Options d = defaults();
      int payouts = d.payouts;
      int accounts = d.accounts;
      int workers = d.workers;
      String backend = d.backend;
      boolean keepRunning = d.keepRunning;
      Path summaryJson = d.summaryJson;
      int lockPort = d.lockPort;
      boolean jsonLogs = d.jsonLogs;
      double ambiguity = d.ambiguity;
      int concurrency = d.concurrency;
      String railLatency = d.railLatency;
      boolean synchronousCommit = d.synchronousCommit;
      Path jfrDir = d.jfrDir;
      int pageSize = d.pageSize;
      String railTimeout = d.railTimeout;
      int workerDeadlineSeconds = d.workerDeadlineSeconds;
      for (int i = 0; i < args.length; i++) {
        String arg = args[i];
        String value = null;
        if (arg.contains("=")) {
          value = arg.substring(arg.indexOf('=') + 1);
          arg = arg.substring(0, arg.indexOf('='));
        } else if (i + 1 < args.length && !args[i + 1].startsWith("--") && takesValue(arg)) {
          value = args[++i];
        }
        if (takesValue(arg) && value == null) {
          usage(arg + " needs a value");
        }
        switch (arg) {
          case "--payouts" -> payouts = Integer.parseInt(value);
          case "--accounts" -> accounts = Integer.parseInt(value);
          case "--workers" -> workers = Integer.parseInt(value);
          case "--backend" -> {
            if (!value.equals("postgres") && !value.equals("etcd")) {
              usage("--backend is postgres or etcd");
            }
            backend = value;
          }
          case "--keep-running" -> keepRunning = true;
          case "--summary-json" -> summaryJson = Path.of(value);
          case "--lock-port" -> lockPort = Integer.parseInt(value);
          case "--ambiguity" -> ambiguity = Double.parseDouble(value);
          case "--json-logs" -> jsonLogs = true;
          case "--concurrency" -> concurrency = Integer.parseInt(value);
          case "--rail-latency" -> {
            if (!value.equals("a07") && !value.matches("\\d+ms")) {
              usage("--rail-latency is <n>ms or a07");
            }
            railLatency = value;
          }
          case "--synchronous-commit" -> {
            if (!value.equals("on") && !value.equals("off")) {
              usage("--synchronous-commit is on or off");
            }
            synchronousCommit = value.equals("on");
          }
          case "--jfr" -> jfrDir = Path.of(value);
          case "--page-size" -> pageSize = Integer.parseInt(value);
          case "--rail-timeout" -> {
            if (!value.matches("\\d+(ms|s)")) {
              usage("--rail-timeout is <n>ms or <n>s");
            }
            railTimeout = value;
          }
          case "--worker-deadline" -> workerDeadlineSeconds = Integer.parseInt(value);
          case "--help", "-h" -> usage(null);
          default -> usage("unknown option " + arg);
        }
      }
      if (payouts < 1 || accounts < 1 || workers < 1 || accounts > payouts) {
        usage("need payouts >= accounts >= 1 and workers >= 1");
      }
      if (concurrency < 1 || concurrency > 256 || pageSize < 1 || pageSize > 1_000) {
        usage("need 1 <= --concurrency <= 256 and 1 <= --page-size <= 1000");
      }
      return new Options(
          payouts,
          accounts,
          workers,
          backend,
          keepRunning,
          summaryJson,
          lockPort,
          jsonLogs,
          ambiguity,
          concurrency,
          railLatency,
          synchronousCommit,
          jfrDir,
          pageSize,
          railTimeout,
          workerDeadlineSeconds);
    }

    private static boolean takesValue(String arg) {
      return List.of(
              "--payouts",
              "--accounts",
              "--workers",
              "--backend",
              "--summary-json",
              "--lock-port",
              "--ambiguity",
              "--concurrency",
              "--rail-latency",
              "--synchronous-commit",
              "--jfr",
              "--page-size",
              "--rail-timeout",
              "--worker-deadline")
          .contains(arg);
    }

    private static void usage(String error) {
      String text =
          """
          usage: ./fencepost run [--payouts 1000] [--accounts 100] [--workers 4]
                                 [--backend postgres|etcd] [--keep-running]
                                 [--summary-json FILE] [--lock-port 8081] [--ambiguity 0.005]
                                 [--json-logs]
                   benchmark:    [--concurrency 1] [--rail-latency 0ms|300ms|a07]
                                 [--synchronous-commit off|on] [--page-size 100] [--jfr DIR]
                                 [--rail-timeout 1s] [--worker-deadline SECONDS]
          Starts embedded PostgreSQL, the lock server, the rail stub and the rail proxy, seeds
          payouts, runs the payout job as worker processes until nothing is left to do, and prints
          a summary (exit code 0 when there is no duplicate and the ledger balances).
          --workers is worker processes; --concurrency payout threads in each (a benchmark
          "worker" is one thread). See docs/local-platform.md and docs/benchmarks.md.""";
      if (error == null) {
        System.out.println(text);
        System.exit(0);
      }
      System.err.println(error + "\n" + text);
      System.exit(2);
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("--worker")) {
      PayoutJobApplication.main(java.util.Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    Options options = Options.parse(args);
    System.out.printf(
        "Starting Fencepost locally: embedded PostgreSQL, lock server (%s), rail stub, rail proxy...%n",
        options.backend());
    LocalStack stack = start(options);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  stack.close();
                  stopped.countDown();
                },
                "local-stack-stop"));
    System.out.printf(
        "Seeding %d payouts over %d accounts...%n", options.payouts(), options.accounts());
    stack.seed();
    System.out.printf(
        "Running payoutJob in %d worker processes x %d payout thread(s)...%n",
        options.workers(), options.concurrency());
    Summary summary = stack.runWorkers();
    System.out.println(
        "Reconciling: ambiguity resolved by the rail's evidence, every class counted...");
    Reconciliation reconciliation = stack.reconcile();
    if (reconciliation.settled() + reconciliation.absent() > 0 && stack.actionable() > 0) {
      // Resolved payouts unblock their accounts: settled ones await posting by a worker (POST is
      // worker-only), and PENDING payouts behind them may now run.
      System.out.println("Running payoutJob again for what reconciliation unblocked...");
      summary = stack.runWorkers();
      reconciliation = stack.reconcile().after(reconciliation);
    }
    summary = summary.with(reconciliation);
    System.out.print(summary.text());
    if (options.summaryJson() != null) {
      Files.writeString(options.summaryJson(), summary.json());
      System.out.println("  summary JSON    " + options.summaryJson());
    }
    if (options.keepRunning()) {
      System.out.printf(
          """

          Services stay up until Ctrl-C:
            lock server   %s
            rail proxy    %s
            rail stub     %s   (GET /rail/admin/movements: the ground truth)
            PostgreSQL    127.0.0.1:%d  (lockdb, paydb, proxydb, batchdb; user postgres)
          %n""",
          stack.lockServerUrl(), stack.proxyUrl(), stack.stubUrl(), stack.postgresPort());
      stopped.await();
      return;
    }
    System.exit(summary.healthy() ? 0 : 1);
  }
}
