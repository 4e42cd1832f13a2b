package dev.fencepost.experiments.harness;

import dev.fencepost.history.CheckReport;
import dev.fencepost.history.Checker;
import dev.fencepost.history.Extractors;
import dev.fencepost.history.History;
import dev.fencepost.history.HistoryFiles;
import dev.fencepost.history.HistoryRecorder;
import dev.fencepost.history.Records;
import dev.fencepost.history.Timeline;
import dev.fencepost.launcher.LocalIdentity;
import dev.fencepost.launcher.LocalPlatform;
import dev.fencepost.launcher.PayoutWorkerArgs;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.PaymentResource;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutId;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payment.testkit.PaydbFixtures;
import dev.fencepost.payoutjob.PayoutFailpoint.Point;
import dev.fencepost.security.FencepostRole;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.awaitility.Awaitility;

/**
 * One scenario's run: a fresh run directory {@code target/runs/<scenario>/}, a fresh paydb, the
 * shared {@link Stack} with the proxy for this run's {@link Guards}, worker processes, an {@code
 * event} record for every signal sent, and at the end the extraction, the checker and the timeline
 * ({@link #finish()}). Usage in HARNESS.md.
 */
public final class ExperimentRun implements AutoCloseable {

  /** The lock TTL of every experiment worker: a pause past the lease costs seconds, not 15 s. */
  public static final String LOCK_TTL = "3s";

  private final String scenario;
  private final String title;
  private final Guards guards;
  private final LockBackend backend;
  private final Stack stack;
  private final Path dir;
  private final PostgresDatabase paydb;
  private final PaymentResource payments;
  private final PaydbFixtures fixtures;
  private final HistoryRecorder harness;
  private final Set<String> accounts = new LinkedHashSet<>();
  private final Set<String> clientReferences = new LinkedHashSet<>();
  private final Map<String, Worker> workers = new LinkedHashMap<>();
  private final List<Object> extraRecords = new ArrayList<>();
  private boolean faultsSet;

  private ExperimentRun(
      String scenario, String title, Guards guards, LockBackend backend, boolean sharedLockServer) {
    if (!scenario.matches("[a-z0-9-]+")) {
      throw new IllegalArgumentException("scenario must match [a-z0-9-]+: " + scenario);
    }
    this.scenario = scenario;
    this.title = title;
    this.guards = guards;
    this.backend = backend;
    this.stack = Stack.shared();
    this.dir = Settings.runsDir().resolve(scenario);
    deleteRecursively(dir);
    Settings.ensureDir(dir);
    if (sharedLockServer) {
      stack.lockServer(backend);
    }
    stack.proxy(guards);
    this.paydb = LocalPlatform.createPaydb(stack.postgres(), "exp_paydb");
    this.payments = new PaymentResource(paydb.dataSource(), new SimpleMeterRegistry());
    this.fixtures = new PaydbFixtures(paydb.dataSource(), "experiments");
    this.harness = HistoryRecorder.open(dir, "harness");
  }

  /** A run on the PostgreSQL lock backend. */
  public static ExperimentRun start(String scenario, String title, Guards guards) {
    return new ExperimentRun(scenario, title, guards, LockBackend.POSTGRES, true);
  }

  public static ExperimentRun start(
      String scenario, String title, Guards guards, LockBackend backend) {
    return new ExperimentRun(scenario, title, guards, backend, true);
  }

  /**
   * A run whose workers all use a lock server the scenario owns on {@code backend} (passed with
   * {@link WorkerSpec#lockServer}), so the shared stack's lock server of that backend is not
   * started for it. On {@link LockBackend#ETCD} the scenario's etcd is its own too, and its grants
   * come in through {@link #addRecords} ({@link EtcdGrants}); on PostgreSQL {@link #finish()}
   * extracts them from the shared lockdb as usual.
   */
  public static ExperimentRun startOnOwnLockServer(
      String scenario, String title, Guards guards, LockBackend backend) {
    return new ExperimentRun(scenario, title, guards, backend, false);
  }

  public String scenario() {
    return scenario;
  }

  public Path dir() {
    return dir;
  }

  public Guards guards() {
    return guards;
  }

  public Stack stack() {
    return stack;
  }

  public PaymentResource payments() {
    return payments;
  }

  public PaydbFixtures fixtures() {
    return fixtures;
  }

  public PostgresDatabase paydb() {
    return paydb;
  }

  /** A funded account of this run with one PENDING payout of {@code amount}. */
  public Payout payout(String label, long funding, long amount) {
    return payouts(label, funding, 1, amount).get(0);
  }

  /** A funded account of this run with {@code count} PENDING payouts of {@code amount}. */
  public List<Payout> payouts(String label, long funding, int count, long amount) {
    AccountId account = AccountId.of(label + "-" + UUID.randomUUID().toString().substring(0, 8));
    fixtures.createAccount(account, funding);
    accounts.add(account.value());
    List<Payout> created = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Payout p = fixtures.createPendingPayout(account, amount, "EUR", "ben-" + i);
      clientReferences.add(p.clientReference());
      created.add(p);
    }
    return created;
  }

  /** Starts configuring a worker process; {@link WorkerSpec#start()} launches it. */
  public WorkerSpec worker(String id) {
    if (!id.matches("[A-Za-z0-9_-]+") || workers.containsKey(id)) {
      throw new IllegalArgumentException("worker id must be new and match [A-Za-z0-9_-]+: " + id);
    }
    return new WorkerSpec(id);
  }

  /** A worker's configuration (fluent). */
  public final class WorkerSpec {
    private final String id;
    private Point pauseAt;
    private Point killAt;
    private boolean loop;
    private boolean pauseLandsAfterCheck;
    private boolean gated;
    private boolean served;
    private JavaProcess lockServer;
    private final List<String> extra = new ArrayList<>();

    private WorkerSpec(String id) {
      this.id = id;
    }

    /** Park at {@code point}; the scenario SIGSTOPs it there ({@link #stop}). */
    public WorkerSpec pauseAt(Point point) {
      this.pauseAt = point;
      return this;
    }

    /** Park at {@code point}; the scenario SIGKILLs it there ({@link #kill}). */
    public WorkerSpec killAt(Point point) {
      this.killAt = point;
      return this;
    }

    /**
     * Once resumed, locks taken before the pause skip their local deadline check: the pause landed
     * a moment after {@code ensureHeld()} passed, so the worker reaches the guards.
     */
    public WorkerSpec pauseLandsAfterCheck() {
      this.pauseLandsAfterCheck = true;
      return this;
    }

    /**
     * Run the job in a loop until stopped (a successor that must find the payout whenever the lease
     * frees), instead of once and exit.
     */
    public WorkerSpec loop() {
      this.loop = true;
      return this;
    }

    /**
     * Start the JVM now but run no payout until {@link Worker#openGate()}: a successor can boot
     * while the first worker is still being frozen (a JVM start is most of a run's time).
     */
    public WorkerSpec gated() {
      this.gated = true;
      return this;
    }

    /**
     * Serve its management endpoints on a loopback port of its own (as the payout workers'
     * Deployment does), so that a Prometheus can scrape its metrics; the worker otherwise runs
     * without a web server.
     */
    public WorkerSpec served() {
      this.served = true;
      return this;
    }

    /** Further {@code --name=value} arguments (replacing the harness's value of that name). */
    public WorkerSpec arg(String arg) {
      extra.add(arg);
      return this;
    }

    /** The lock server this worker uses instead of the shared one (a scenario's own). */
    public WorkerSpec lockServer(JavaProcess server) {
      this.lockServer = server;
      return this;
    }

    public Worker start() {
      Path control = dir.resolve("control").resolve(id);
      JavaProcess locks = lockServer != null ? lockServer : stack.lockServer(backend);
      PayoutWorkerArgs args =
          PayoutWorkerArgs.worker(
              id, locks.baseUrl(), stack.proxy(guards).baseUrl(), paydb, stack.batchdb());
      args.set("fencepost.lock.client.owner", id)
          .set("fencepost.lock.client.ttl", LOCK_TTL)
          .set("fencepost.lock.client.connect-timeout", "500ms")
          .set("fencepost.lock.client.read-timeout", "800ms")
          .set("fencepost.experiment.history-dir", dir)
          .set("fencepost.experiment.worker-id", id)
          .set("fencepost.experiment.control-dir", control);
      if (pauseAt != null) {
        args.set("fencepost.experiment.pause-at", pauseAt);
      }
      if (killAt != null) {
        args.set("fencepost.experiment.kill-at", killAt);
      }
      if (pauseLandsAfterCheck) {
        args.set("fencepost.experiment.pause-lands-after-check", true);
      }
      if (gated) {
        args.set("fencepost.experiment.gated", true);
      }
      if (!guards.resourceFence()) {
        args.set("fencepost.experiment.resource-fence", "off");
      }
      if (loop) {
        args.looping("200ms");
      } else {
        args.once();
      }
      if (served) {
        args.set("spring.main.web-application-type", "servlet");
      }
      extra.forEach(args::set);
      JavaProcess.Builder builder =
          JavaProcess.jar(id, Settings.workerJar()).tls(LockServers.tls());
      if (served) {
        builder.httpPort(0);
      }
      JavaProcess process =
          LocalIdentity.withEnvironment(
                  builder, LockServers.identity().clientEnvironment(FencepostRole.PAYOUT_WORKER))
              .leanJvm()
              .heap("192m")
              .log(dir.resolve("logs").resolve(id + ".log"))
              .args(args.toArgs())
              .start();
      Worker worker = new Worker(id, process, control);
      workers.put(id, worker);
      event(
          worker,
          "START",
          "pid " + process.pid() + (loop ? ", loop" : ", once") + (gated ? ", gated" : ""));
      return worker;
    }
  }

  /** Lets a {@link WorkerSpec#gated()} worker start running payouts. */
  public void openGate(Worker worker, String detail) {
    event(worker, "GO", detail);
    worker.openGate();
  }

  /** SIGSTOP: the whole JVM freezes, heartbeats included, so its lease runs out. */
  public void stop(Worker worker, String detail) {
    event(worker, "SIGSTOP", detail);
    worker.process().pause();
  }

  /** SIGCONT without releasing the parking (the worker goes on waiting at its point). */
  public void cont(Worker worker, String detail) {
    event(worker, "SIGCONT", detail);
    worker.process().resume();
  }

  /** Lets a parked worker go on: creates its resume file and, if it was stopped, SIGCONTs it. */
  public void resume(Worker worker, boolean wasStopped, String detail) {
    worker.releaseParking();
    if (wasStopped) {
      cont(worker, detail);
    } else {
      event(worker, "RESUME", detail);
    }
  }

  /** SIGKILL: the worker dies where it is, as a crashed pod would. */
  public void kill(Worker worker, String detail) {
    event(worker, "SIGKILL", detail);
    worker.process().kill();
  }

  /**
   * SIGTERM: a graceful shutdown (its lock session is closed). For a worker that has already ended,
   * no signal: its process is only let go of.
   */
  public void terminate(Worker worker, String detail) {
    if (worker.isAlive()) {
      event(worker, "SIGTERM", detail);
    }
    worker.process().close();
  }

  /** Records a harness event (for things a scenario does besides signals: revoke, outage...). */
  public void event(Worker worker, String kind, String detail) {
    harness.record(
        new Records.Event(
            "harness",
            worker == null ? null : worker.id(),
            kind,
            detail,
            HistoryRecorder.nanoTime(),
            Instant.now()));
  }

  /** Makes the stub answer these client references with these modes for this run. */
  public void railFaults(Map<String, String> overridesByClientReference) {
    faultsSet = true;
    stack.railFaults(overridesByClientReference);
  }

  /** Adds records the extractors cannot produce (e.g. etcd {@code grant}s from a watch). */
  public void addRecords(List<?> records) {
    extraRecords.addAll(records);
  }

  public Payout reload(Payout payout) {
    return payments.findPayout(payout.id()).orElseThrow();
  }

  /** Waits until the payout is in one of {@code states}; the payout then. */
  public Payout awaitState(Payout payout, PayoutState... states) {
    Set<PayoutState> wanted = Set.of(states);
    Awaitility.await(payout.id() + " in " + Arrays.toString(states))
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> wanted.contains(reload(payout).state()));
    return reload(payout);
  }

  /** Waits until {@code worker} has recorded an effect matching {@code what}. */
  public Records.Effect awaitEffect(
      String worker, java.util.function.Predicate<Records.Effect> what) {
    return Awaitility.await(worker + " records the awaited effect")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                HistoryFiles.read(dir).effects.stream()
                    .filter(e -> e.worker().equals(worker) && what.test(e))
                    .findFirst(),
            java.util.Optional::isPresent)
        .orElseThrow();
  }

  /** The rail's movements for this payout (the stub's ground truth, FR-21). */
  public int movements(Payout payout) {
    return stack.stubAdmin().movementsOf(payout.clientReference());
  }

  /** Rows in proxydb's rail_submission for this payout (guarded and unguarded). */
  public long submissions(PayoutId payout) {
    return proxyCount("SELECT count(*) FROM rail_submission WHERE payout_id = ?", payout)
        + proxyCount("SELECT count(*) FROM unguarded_submission WHERE payout_id = ?", payout);
  }

  private long proxyCount(String sql, PayoutId payout) {
    PostgresDatabase proxydb = stack.proxydb();
    try (Connection c =
            DriverManager.getConnection(proxydb.jdbcUrl(), proxydb.username(), proxydb.password());
        PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, payout.toString());
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      if ("42P01".equals(e.getSQLState())) {
        return 0; // no such table in this schema version
      }
      throw new IllegalStateException(e);
    }
  }

  /**
   * Ends the run: SIGTERMs workers still running, extracts lockdb (this run's keys), paydb (all: it
   * is the run's own), proxydb (this run's accounts) and the stub (this run's client references)
   * into the run directory, runs the checker, and writes {@code check-report.md}, {@code
   * check-report.json} and {@code timeline.svg} next to the records.
   */
  public RunResult finish() {
    for (Worker worker : workers.values()) {
      terminate(worker, "end of run");
    }
    if (faultsSet) {
      stack.resetRailFaults();
      faultsSet = false;
    }
    harness.close();
    List<Object> records = new ArrayList<>(extraRecords);
    try {
      Set<String> keys = new LinkedHashSet<>();
      accounts.forEach(a -> keys.add(Checker.DEFAULT_KEY_PREFIX + a));
      if (backend == LockBackend.POSTGRES) {
        try (Connection c = connect(stack.lockdb())) {
          for (Object r : Extractors.lockdb(c)) {
            if (r instanceof Records.Grant g && keys.contains(g.key())) {
              records.add(r);
            }
          }
        }
      }
      try (Connection c = connect(paydb)) {
        records.addAll(Extractors.paydb(c));
      }
      try (Connection c = connect(stack.proxydb())) {
        for (Object r : Extractors.proxydb(c)) {
          if (r instanceof Records.Submission s && accounts.contains(s.account())
              || r instanceof Records.GuardDecision d && accounts.contains(d.account())) {
            records.add(r);
          }
        }
      }
      for (Object r : stack.railMovements()) {
        if (r instanceof Records.RailMovement m && clientReferences.contains(m.clientReference())) {
          records.add(r);
        }
      }
    } catch (SQLException | IOException e) {
      throw new IllegalStateException("extraction failed for " + scenario, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    HistoryFiles.append(dir, records);
    History history = HistoryFiles.read(dir);
    CheckReport report = new Checker().check(history);
    Path timeline = dir.resolve("timeline.svg");
    try {
      String svg = Timeline.render(history, title);
      if (svg == null) {
        // The checker draws nothing for a run with no worker and no movement (a driver-only
        // mutation run); an empty picture that says so keeps every run's evidence uniform.
        svg =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"480\" height=\"40\">"
                + "<text x=\"8\" y=\"24\" font-family=\"sans-serif\" font-size=\"13\">"
                + "nothing to draw: no worker and no rail movement in this run</text></svg>";
      }
      Files.writeString(timeline, svg, StandardCharsets.UTF_8);
      Files.writeString(dir.resolve("check-report.json"), report.toJson(), StandardCharsets.UTF_8);
      Files.writeString(
          dir.resolve("check-report.md"), report.toMarkdown(title), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new RunResult(scenario, title, dir, history, report, timeline);
  }

  private static Connection connect(PostgresDatabase db) throws SQLException {
    return DriverManager.getConnection(db.jdbcUrl(), db.username(), db.password());
  }

  /** Kills what is still running (a failed scenario) and drops the run's paydb pool. */
  @Override
  public void close() {
    for (Worker worker : workers.values()) {
      worker.process().kill();
    }
    if (faultsSet) {
      stack.resetRailFaults();
    }
    harness.close();
    paydb.close();
  }

  private static void deleteRecursively(Path path) {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(path)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
