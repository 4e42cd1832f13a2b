package dev.fencepost.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code ./fencepost run} as a person uses it, small: 60 payouts over 12 accounts, two worker
 * processes of two payout threads racing, synchronous commits on. The console stays quiet (banner,
 * one line per phase, the summary; no framework log line), every log is in the printed directory,
 * and the summary read from the stores shows no duplicate movement (INV-02), a balanced ledger
 * (INV-03), every POSTED payout moved money, and nothing left half-done. The benchmark scripts
 * write their sections from that summary.
 */
class LocalStackTest {

  @TempDir static Path dir;

  /** The small run's exit code, its console and its summary, made once for the class. */
  private static int exit;

  private static String printed;
  private static Path json;

  @BeforeAll
  static void runSmall() {
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    LocalStack command = new LocalStack();
    command.out = new PrintStream(console, true, StandardCharsets.UTF_8);
    json = dir.resolve("summary.json");

    exit =
        new CommandLine(command)
            .execute(
                "--payouts",
                "60",
                "--accounts",
                "12",
                "--workers",
                "2",
                "--concurrency",
                "2",
                "--synchronous-commit",
                "on",
                "--lock-port",
                "0",
                "--summary-json",
                json.toString());
    printed = console.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aSmallRunPrintsOnlyItsPhasesAndASummaryWithNoDuplicateAndABalancedLedger() throws Exception {
    assertThat(exit).as(printed).isZero();
    assertThat(printed)
        .contains("Starting", "Seeding", "Paying out", "Reconciling")
        .contains("duplicates", "ledger balanced", "reconciliation")
        .contains("2 process(es) x 2 thread(s)")
        .doesNotContainIgnoringCase("liquibase")
        .doesNotContainIgnoringCase("hikari")
        .doesNotContain("\"@timestamp\"");
    assertThat(printed.lines().count()).isLessThan(45);
    Path logs =
        Path.of(
            printed
                .lines()
                .filter(l -> l.startsWith("  logs: "))
                .findFirst()
                .orElseThrow()
                .substring("  logs: ".length()));
    try (var files = Files.list(logs)) {
      assertThat(files.map(f -> f.getFileName().toString()).toList())
          .contains(
              "fencepost-run.log",
              "lock-server.log",
              "rail-proxy.log",
              "rail-stub.log",
              "reconciliation-1.log")
          .anyMatch(name -> name.startsWith("worker-1-0"));
    }
    // Every hop was TLS (ADR 0150): each service and job served HTTPS with this run's
    // certificate, whose key only its owner may read.
    assertThat(Files.getPosixFilePermissions(logs.resolve("tls").resolve("server-key.pem")))
        .containsExactlyInAnyOrder(
            java.nio.file.attribute.PosixFilePermission.OWNER_READ,
            java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
    for (String log :
        List.of(
            "identity-issuer.log",
            "lock-server.log",
            "rail-proxy.log",
            "rail-stub.log",
            "reconciliation-1.log")) {
      assertThat(Files.readString(logs.resolve(log))).as(log).contains("(https)");
    }
    for (String log : List.of("lock-server.log", "rail-proxy.log", "reconciliation-1.log")) {
      assertThat(Files.readString(logs.resolve(log))).as(log).contains("\"event\":\"tls.serving\"");
    }
    assertThat(Files.readString(logs.resolve("worker-1-0.log")))
        .contains("lock client started against https://");

    JsonNode summary = JsonMapper.builder().build().readTree(Files.readString(json));
    assertThat(summary.path("duplicates").asLong()).isZero();
    assertThat(summary.path("ledgerBalanced").asBoolean()).isTrue();
    assertThat(summary.path("posted").asLong()).isPositive();
    assertThat(summary.path("railMovements").asLong())
        .isGreaterThanOrEqualTo(summary.path("posted").asLong());
    for (String inFlight : List.of("CLAIMED", "RAIL_SUBMITTED", "RAIL_ACKED")) {
      assertThat(summary.path("states").path(inFlight).asLong()).as(inFlight).isZero();
    }
    JsonNode measures = summary.path("measures");
    assertThat(measures.path("workers").asInt()).isEqualTo(4);
    assertThat(measures.path("durability").asString()).contains("synchronous_commit=on");
    assertThat(measures.path("attempts").path("POSTED").asLong())
        .isEqualTo(summary.path("posted").asLong());
    // Read from the server's own views, so a query PostgreSQL refused would have failed the run.
    JsonNode whole = measures.path("costs").path("whole");
    assertThat(whole.path("walFullPageImages").isNumber()).isTrue();
    assertThat(whole.path("checkpoints").isNumber()).isTrue();
    assertThat(summary.path("reconciliation").path("pages").asLong()).isZero();
    assertThat(summary.path("reconciliation").path("counts").has("DUPLICATE_SUBMISSION")).isTrue();
  }

  /**
   * Each benchmark script's report, rewritten with {@code --report} from a results directory that
   * holds this run's summary for each of its runs, is a whole section between its markers: so a
   * summary field a script reads is still there, and a change to the summary breaks this test, not
   * the end of an hour's benchmark. What is checked is that the report was written, never a figure.
   */
  @Test
  void theBenchmarkScriptsWriteTheirSectionsFromItsSummary() throws Exception {
    assertThat(exit).as(printed).isZero();
    Path work = Files.createDirectories(dir.resolve("reports"));

    BenchReports.Report payout =
        BenchReports.render(
            "run-payout-bench.sh",
            json,
            List.of("zero", "fixed300", "a07"),
            work,
            "settings",
            "PROCESSES=2\nPAYOUTS_0MS=60\nPAYOUTS_300MS=60\nPAYOUTS_A07=60\nDEADLINE=600");
    assertThat(payout.exit()).as(payout.printed()).isZero();
    assertThat(section(payout, "payout-bench"))
        .contains("Generated by `bench/run-payout-bench.sh` from commit `0000000")
        .contains("What one payout cost in the measured window")
        .contains("| target | verdict | measured |");

    BenchReports.Report capacity =
        BenchReports.render(
            "run-capacity.sh", json, List.of("t4", "t8", "t16"), work, "sizes", "4 8 16");
    assertThat(capacity.exit()).as(capacity.printed()).isZero();
    assertThat(section(capacity, "capacity"))
        .contains("Generated by `bench/run-capacity.sh` from commit `0000000")
        .contains("$ per million payouts");

    // Three sizes, each this run's summary: the names are only where the report looks for them.
    List<String> sizes = List.of("size-1", "size-2", "size-3");
    BenchReports.Report growth =
        BenchReports.render("run-growth.sh", json, sizes, work, "names", String.join(" ", sizes));
    assertThat(growth.exit()).as(growth.printed()).isZero();
    assertThat(section(growth, "growth-bench"))
        .contains("Generated by `bench/run-growth.sh` from commit `0000000")
        .contains("CPU per payout flat")
        .contains("-payout run at 12 accounts, its tenths but the last");
  }

  /** The text between a report's markers in the document its script wrote. */
  private static String section(BenchReports.Report report, String marker) {
    String document = report.document();
    String start = "<!-- " + marker + ":start -->";
    String end = "<!-- " + marker + ":end -->";
    assertThat(document).as(report.printed()).contains(start, end);
    return document.substring(document.indexOf(start), document.indexOf(end));
  }

  @Test
  void withoutOptionsTheLocalPlatformsDefaultsApply() {
    RunOptions plain = parse();
    assertThat(plain.payouts()).isEqualTo(1_000);
    assertThat(plain.accounts()).isEqualTo(100);
    assertThat(plain.workers()).isEqualTo(4);
    assertThat(plain.backend()).isEqualTo("postgres");
    assertThat(plain.lockPort()).isEqualTo(8081);
    assertThat(plain.concurrency()).isEqualTo(1);
    assertThat(plain.synchronousCommit()).as("durable commits unless a benchmark says").isTrue();
    assertThat(plain.commitDelay())
        .as("group commit, under one flush of a local disk")
        .isEqualTo(Duration.ofNanos(100_000));
    assertThat(plain.railLatency()).isEqualTo("0ms");
    assertThat(plain.railTimeout()).isEqualTo("1s");
    assertThat(plain.verbose()).isFalse();
    assertThat(plain.benchmark()).as("the summary shows no benchmark block").isFalse();
  }

  @Test
  void theBenchmarkOptionsParse() {
    RunOptions bench =
        parse(
            "--workers",
            "2",
            "--concurrency",
            "16",
            "--rail-latency",
            "a07",
            "--synchronous-commit=off",
            "--commit-delay",
            "250us",
            "--page-size",
            "1000",
            "--payouts-per-grant",
            "1",
            "--jfr",
            "/tmp/jfr",
            "--worker-deadline",
            "240",
            "--backend",
            "etcd",
            "-v");
    assertThat(bench.concurrency()).isEqualTo(16);
    assertThat(bench.railLatencyDistribution()).isEqualTo("LOGNORMAL");
    assertThat(bench.railTimeout()).isEqualTo("10s");
    assertThat(bench.synchronousCommit()).isFalse();
    assertThat(bench.commitDelay()).isEqualTo(Duration.ofNanos(250_000));
    assertThat(parse("--commit-delay", "0ms").commitDelay()).isZero();
    assertThat(parse("--commit-delay", "0ms").benchmark()).isTrue();
    assertThat(bench.pageSize()).isEqualTo(1000);
    assertThat(bench.payoutsPerGrant()).isEqualTo(1);
    assertThat(parse("--payouts-per-grant", "1").benchmark()).isTrue();
    assertThat(parse().payoutsPerGrant()).as("the worker's own default").isEqualTo(10);
    assertThat(bench.jfrDir()).isEqualTo(Path.of("/tmp/jfr"));
    assertThat(bench.workerDeadlineSeconds()).isEqualTo(240);
    assertThat(bench.backend()).isEqualTo("etcd");
    assertThat(bench.verbose()).isTrue();
    assertThat(bench.benchmark()).isTrue();
    RunOptions fixed = parse("--rail-latency", "300ms", "--rail-timeout", "2s");
    assertThat(fixed.railLatencyDistribution()).isEqualTo("FIXED");
    assertThat(fixed.railLatencyFixed()).isEqualTo("300ms");
    assertThat(fixed.railTimeout()).isEqualTo("2s");
  }

  /** Each kind of bad command line: exit code 2, a message naming the problem, nothing started. */
  @Test
  void aBadCommandLineIsAUsageErrorThatStartsNothing() {
    Map<List<String>, String> cases =
        Map.of(
            List.of("--payouts", "5", "--accounts", "10"), "payouts >= accounts",
            List.of("--workers", "0"), "--workers",
            List.of("--backend", "zookeeper"), "--backend is postgres or etcd",
            List.of("--rail-latency", "fast"), "--rail-latency",
            List.of("--synchronous-commit", "maybe"), "--synchronous-commit",
            List.of("--payouts", "many"), "'many' is not an int",
            List.of("--no-such-option"), "Unknown option",
            List.of("--ambiguity", "2"), "--ambiguity",
            List.of("--rail-timeout", "1 minute"), "--rail-timeout",
            List.of("--lock-port", "70000"), "--lock-port");
    cases.forEach(LocalStackTest::assertUsageErrorStartingNothing);
    assertUsageErrorStartingNothing(List.of("--payouts-per-grant", "0"), "--payouts-per-grant");
  }

  /** PostgreSQL takes 0 to 100,000 microseconds; anything else is refused before it starts. */
  @Test
  void aCommitDelayPostgresWouldRefuseIsAUsageError() {
    for (String bad : List.of("1s", "101ms", "-1ms", "1.5ms", "fast")) {
      assertUsageErrorStartingNothing(List.of("--commit-delay", bad), "--commit-delay");
    }
  }

  private static void assertUsageErrorStartingNothing(List<String> args, String message) {
    StringWriter err = new StringWriter();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    LocalStack command = new LocalStack();
    command.out = new PrintStream(out, true, StandardCharsets.UTF_8);
    int exit =
        new CommandLine(command).setErr(new PrintWriter(err)).execute(args.toArray(String[]::new));
    assertThat(exit).as("%s", args).isEqualTo(2);
    assertThat(err.toString()).as("%s", args).contains(message).contains("Usage:");
    assertThat(out.toString(StandardCharsets.UTF_8)).as("%s", args).isEmpty();
  }

  @Test
  void helpDescribesEveryOption() {
    StringWriter help = new StringWriter();
    int exit = new CommandLine(new LocalStack()).setOut(new PrintWriter(help)).execute("--help");
    assertThat(exit).isZero();
    assertThat(help.toString())
        .contains("--payouts", "--backend", "--keep-running", "--verbose", "--summary-json");
  }

  private static RunOptions parse(String... args) {
    LocalStack command = new LocalStack();
    new CommandLine(command).parseArgs(args);
    return command.options();
  }
}
