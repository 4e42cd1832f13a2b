package dev.fencepost.localstack;

import dev.fencepost.launcher.LocalIdentity;
import dev.fencepost.launcher.OperatorConsoleStack;
import dev.fencepost.launcher.process.JavaProcess;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ./fencepost run}: the command line and the summary. It starts the whole payout platform on
 * this machine through the launcher (embedded PostgreSQL, the lock server on PostgreSQL or etcd,
 * the rail stub with 0.5 % ambiguous outcomes, the rail proxy), seeds synthetic payouts, runs the
 * payout job as racing worker processes until nothing actionable is left, reconciles, and prints
 * what the stores say: payouts per state, rail movements, duplicates (must be 0), whether the
 * ledger balances, fenced-out writes, throughput and reconciliation's verdict. Exit code 0 when
 * there is no duplicate, the ledger balances and reconciliation paged nothing; 1 otherwise; 2 for a
 * bad command line. See docs/local-platform.md.
 */
@Command(
    name = "fencepost run",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    usageHelpAutoWidth = true,
    description = {
      "Runs the payout platform on this machine and prints what happened.",
      "Every log goes to a file in the run's directory, whose path is printed."
    })
public final class LocalStack implements Callable<Integer> {

  @Spec CommandSpec spec;

  /** Where the banner, the progress and the summary go (a test captures it). */
  PrintStream out = System.out;

  @Option(
      names = "--payouts",
      defaultValue = "1000",
      description = "Payouts to seed (${DEFAULT-VALUE}).")
  int payouts;

  @Option(
      names = "--accounts",
      defaultValue = "100",
      description = "Accounts to spread them over (${DEFAULT-VALUE}).")
  int accounts;

  @Option(
      names = "--workers",
      defaultValue = "4",
      description = "Worker processes racing each round (${DEFAULT-VALUE}).")
  int workers;

  @Option(
      names = "--backend",
      defaultValue = "postgres",
      description = "Lock backend: postgres or etcd (${DEFAULT-VALUE}).")
  String backend;

  @Option(
      names = "--keep-running",
      description =
          "Leave the services up after the summary, until Ctrl-C, and start the operator"
              + " console (its URL and this run's sign-in are printed).")
  boolean keepRunning;

  @Option(
      names = "--summary-json",
      paramLabel = "FILE",
      description = "Also write the summary as JSON.")
  Path summaryJson;

  @Option(
      names = "--lock-port",
      defaultValue = "8081",
      description = "The lock server's port, 0 for any (${DEFAULT-VALUE}).")
  int lockPort;

  @Option(
      names = "--ambiguity",
      defaultValue = "0.005",
      description = "The rail's rate of ambiguous outcomes (${DEFAULT-VALUE}).")
  double ambiguity;

  @Option(
      names = {"-v", "--verbose"},
      description = "Follow every log on the console instead of progress bars.")
  boolean verbose;

  @Option(
      names = "--concurrency",
      defaultValue = "1",
      description = "Benchmark: payout threads per worker process (${DEFAULT-VALUE}).")
  int concurrency;

  @Option(
      names = "--rail-latency",
      defaultValue = "0ms",
      description = "Benchmark: <n>ms fixed, or a07 (lognormal, median 300 ms, p99 3 s).")
  String railLatency;

  @Option(
      names = "--synchronous-commit",
      defaultValue = "on",
      description =
          "Benchmark: PostgreSQL synchronous_commit (${DEFAULT-VALUE}); off measures what"
              + " durable commits cost, and a crash of the database may then lose commits.")
  String synchronousCommit;

  @Option(
      names = "--commit-delay",
      defaultValue = "100us",
      description =
          "Benchmark: PostgreSQL commit_delay, <n>us or <n>ms up to 100ms (${DEFAULT-VALUE}, under"
              + " one flush of a local disk); 0ms flushes the WAL once for every commit.")
  String commitDelay;

  @Option(
      names = "--page-size",
      defaultValue = "100",
      description = "Benchmark: candidates per worker query (${DEFAULT-VALUE}).")
  int pageSize;

  @Option(
      names = "--payouts-per-grant",
      defaultValue = "10",
      description =
          "Benchmark: payouts of one account a worker's grant may carry, one after another"
              + " (${DEFAULT-VALUE}); 1 releases the lock after every payout.")
  int payoutsPerGrant;

  @Option(
      names = "--jfr",
      paramLabel = "DIR",
      description = "Benchmark: record JFR profiles of the services and first workers here.")
  Path jfrDir;

  @Option(
      names = "--rail-timeout",
      description = "Benchmark: the proxy's rail timeout, <n>ms or <n>s (1s; 10s with a07).")
  String railTimeout;

  @Option(
      names = "--worker-deadline",
      paramLabel = "SECONDS",
      defaultValue = "0",
      description = "Benchmark: stop the workers after this long and summarise what finished.")
  int workerDeadlineSeconds;

  @Option(
      names = "--jvm",
      defaultValue = "lean",
      description =
          "Benchmark: the services' and workers' JVM flags: lean (C1 only, serial GC: a short run"
              + " starts sooner) or production (the JVM's defaults, as the images run)"
              + " (${DEFAULT-VALUE}).")
  String jvm;

  @Option(
      names = "--warmup",
      paramLabel = "N",
      defaultValue = "0",
      description =
          "Benchmark: seed N more payouts first; the benchmark's figures are measured only once"
              + " they have finished, on a warmed-up platform (${DEFAULT-VALUE}).")
  int warmup;

  @Option(
      names = "--statements",
      description =
          "Benchmark: PostgreSQL keeps pg_stat_statements, and the summary lists the costliest"
              + " statements per payout.")
  boolean statements;

  /** The validated options, or a usage error naming what is wrong. */
  RunOptions options() {
    require(payouts >= 1 && accounts >= 1 && accounts <= payouts, "need payouts >= accounts >= 1");
    require(workers >= 1 && workers <= 64, "need 1 <= --workers <= 64");
    require(backend.equals("postgres") || backend.equals("etcd"), "--backend is postgres or etcd");
    require(lockPort >= 0 && lockPort <= 65_535, "--lock-port is a TCP port, or 0");
    require(ambiguity >= 0 && ambiguity <= 1, "--ambiguity is a rate between 0 and 1");
    require(concurrency >= 1 && concurrency <= 256, "need 1 <= --concurrency <= 256");
    require(pageSize >= 1 && pageSize <= 1_000, "need 1 <= --page-size <= 1000");
    require(
        payoutsPerGrant >= 1 && payoutsPerGrant <= 1_000, "need 1 <= --payouts-per-grant <= 1000");
    require(railLatency.matches("a07|\\d{1,6}ms"), "--rail-latency is <n>ms or a07");
    require(
        synchronousCommit.equals("on") || synchronousCommit.equals("off"),
        "--synchronous-commit is on or off");
    require(
        commitDelay.matches("\\d{1,6}(us|ms)") && commitDelay().toNanos() <= 100_000_000L,
        "--commit-delay is <n>us or <n>ms, at most 100ms");
    require(
        railTimeout == null || railTimeout.matches("\\d{1,6}(ms|s)"),
        "--rail-timeout is <n>ms or <n>s");
    require(workerDeadlineSeconds >= 0, "--worker-deadline is a number of seconds");
    require(jvm.equals("lean") || jvm.equals("production"), "--jvm is lean or production");
    require(warmup >= 0 && warmup <= 1_000_000, "need 0 <= --warmup <= 1000000");
    return new RunOptions(
        payouts,
        accounts,
        workers,
        backend,
        keepRunning,
        summaryJson,
        lockPort,
        ambiguity,
        concurrency,
        railLatency,
        synchronousCommit.equals("on"),
        commitDelay(),
        jfrDir,
        pageSize,
        payoutsPerGrant,
        railTimeout,
        workerDeadlineSeconds,
        jvm.equals("production"),
        statements,
        warmup,
        verbose);
  }

  private Duration commitDelay() {
    long n = Long.parseLong(commitDelay.substring(0, commitDelay.length() - 2));
    return commitDelay.endsWith("us") ? Duration.ofNanos(n * 1_000) : Duration.ofMillis(n);
  }

  private void require(boolean condition, String message) {
    if (!condition) {
      throw new ParameterException(spec.commandLine(), message);
    }
  }

  @Override
  public Integer call() throws Exception {
    RunOptions options = options();
    Path runDir = Files.createTempDirectory("fencepost-run-");
    try (Console console =
        new Console(
            out, runDir, options.verbose(), out == System.out && System.console() != null)) {
      console.line(
          String.format(
              "Fencepost: %d payouts over %d accounts, %d worker processes, %s lock backend",
              options.payouts(), options.accounts(), options.workers(), options.backend()));
      console.line("  logs: " + runDir);
      return run(options, runDir, console).healthy() ? 0 : 1;
    }
  }

  private static Summary run(RunOptions options, Path runDir, Console console) throws Exception {
    LocalRun run;
    try (Console.Phase starting = console.phase("Starting", 6, "parts")) {
      int[] ready = {0};
      run =
          LocalRun.start(
              options,
              runDir,
              part -> {
                if (!part.equals("etcd")) {
                  starting.stepTo(++ready[0]);
                }
                starting.note(part);
              });
      starting.note("");
    }
    CountDownLatch stopped = new CountDownLatch(1);
    LocalRun started = run;
    Thread stop =
        new Thread(
            () -> {
              started.close();
              stopped.countDown();
            },
            "local-run-stop");
    Runtime.getRuntime().addShutdownHook(stop);
    Summary summary;
    try {
      try (Console.Phase seeding =
          console.phase("Seeding", options.accounts() + options.seeded(), "records")) {
        run.seed(seeding::stepTo);
      }
      summary = payOut(run, options, console, "Paying out");
      Reconciliation reconciliation = reconcile(run, console);
      if (reconciliation.settled() + reconciliation.absent() > 0 && run.actionable() > 0) {
        // Resolved payouts unblock their accounts: settled ones await posting by a worker
        // (posting is a worker's transition), and PENDING payouts behind them may now run.
        summary = payOut(run, options, console, "Posting");
        reconciliation = reconcile(run, console).after(reconciliation);
      }
      summary = summary.with(reconciliation);
    } catch (Exception | Error e) {
      Runtime.getRuntime().removeShutdownHook(stop);
      run.close();
      throw e;
    }
    console.line(summary.text(options.benchmark()));
    if (options.summaryJson() != null) {
      Files.writeString(options.summaryJson(), summary.json());
      console.line("  summary JSON    " + options.summaryJson());
    }
    if (!options.keepRunning()) {
      Runtime.getRuntime().removeShutdownHook(stop);
      run.close();
      return summary;
    }
    // The operator console and the two jobs it drives, started only when the platform stays up.
    OperatorConsoleStack operators;
    JavaProcess operatorConsole;
    try {
      operators = OperatorConsoleStack.start(run.platform(), Duration.ofMinutes(3), null);
      run.onClose(operators);
      operatorConsole = operators.startConsole(Duration.ofMinutes(3));
    } catch (RuntimeException e) {
      Runtime.getRuntime().removeShutdownHook(stop);
      run.close();
      throw e;
    }
    LocalIdentity.Person operator = run.platform().identity().person(LocalIdentity.OPERATOR);
    console.line(
        String.format(
            """
            Operator console  %s   (sign in as %s, password %s; this run's only)
              reconciliation job  management %s   payout job  management %s""",
            operatorConsole.baseUrl(),
            operator.username(),
            operator.password(),
            operators.reconciliation().managementUrl(),
            operators.payoutJob().managementUrl()));
    console.line(
        String.format(
            """
            Services stay up until Ctrl-C:
              lock server   %s   (management %s)
              rail proxy    %s   (management %s)
              rail stub     %s   (GET /rail/admin/movements: every movement, the ground truth)
              PostgreSQL    127.0.0.1:%d  (databases %s, %s, %s, %s; user postgres)""",
            run.platform().lockServer().baseUrl(),
            run.platform().lockServer().managementUrl(),
            run.platform().railProxy().baseUrl(),
            run.platform().railProxy().managementUrl(),
            run.platform().railStub().baseUrl(),
            run.platform().postgres().port(),
            run.platform().lockdb().name(),
            run.platform().paydb().name(),
            run.platform().proxydb().name(),
            run.platform().batchdb().name()));
    stopped.await();
    return summary;
  }

  private static Summary payOut(LocalRun run, RunOptions options, Console console, String name)
      throws Exception {
    try (Console.Phase paying = console.phase(name, options.seeded(), "payouts")) {
      Summary summary = run.runWorkers(paying::stepTo);
      paying.note(
          String.format(
              "%d posted, %d failed, %d ambiguous",
              summary.states().get("POSTED"),
              summary.states().get("FAILED"),
              summary.states().get("RAIL_AMBIGUOUS")));
      return summary;
    }
  }

  private static Reconciliation reconcile(LocalRun run, Console console) {
    try (Console.Phase reconciling = console.phase("Reconciling", 1, "runs")) {
      Reconciliation reconciliation = run.reconcile();
      reconciling.stepTo(1);
      reconciling.note(reconciliation.clean() ? "clean" : "findings");
      return reconciliation;
    }
  }

  public static void main(String[] args) {
    int exit = new CommandLine(new LocalStack()).execute(args);
    System.exit(exit);
  }
}
