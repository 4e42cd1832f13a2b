package dev.fencepost.experiments.gameday;

import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.Guards;
import dev.fencepost.experiments.harness.LockBackend;
import dev.fencepost.experiments.harness.LockServers;
import dev.fencepost.experiments.harness.Stack;
import dev.fencepost.launcher.LocalIdentity;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.launcher.prometheus.PrometheusServer.Sample;
import dev.fencepost.payment.Payout;
import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.http.TestHttp;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;

/**
 * What the game-day classes share (NFR-11): the Prometheus and the stack of this JVM, the amounts
 * and budgets, and the calls a runbook makes as an operator. Each class is one area of the platform
 * (guards, lock service, reconciliation, payouts, dashboards); {@link GameDayRegistry} gathers
 * their game days into one report.
 */
abstract class GameDays {

  static final long FUNDING = 10_000;
  static final long AMOUNT = 2_500;
  static final String OPERATOR = LocalIdentity.clientId(FencepostRole.OPERATOR);

  /** How long any alert may take to fire: its {@code for:} plus a generous margin. */
  static final Duration FIRE_BUDGET = Duration.ofMinutes(2);

  /** The paydb gauges re-read every second, so a game day does not wait 30 s for them. */
  static final String FAST_GAUGES = "--fencepost.payout.metrics.refresh=1s";

  final Observatory obs = Observatory.shared();
  final Stack stack = Stack.shared();

  /** The shared lock server, proxy and stub, scraped (their alerts are part of every game day). */
  void watchTheServices(LockBackend backend) {
    obs.watch("lock-server", stack.lockServer(backend));
    obs.watch("rail-proxy", stack.proxy(Guards.ALL_ON));
    obs.watch("rail-stub", stack.stub());
  }

  /** A served worker with the fast gauges, scraped from now on. */
  ExperimentRun.WorkerSpec servedWorker(ExperimentRun run, String id) {
    return run.worker(id).loop().served().arg(FAST_GAUGES);
  }

  /**
   * Waits until {@code alert} is neither pending nor firing for any labels: the residue of an
   * earlier game day (a series that has just gone stale) is not this one's detection.
   */
  void awaitQuiet(String alert, Map<String, String> labels) {
    Awaitility.await(alert + " quiet before the injection")
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> !obs.active(alert, labels));
  }

  /** A movement sent to the rail with the rail proxy's own credential, past both guards. */
  HttpResponse<String> rogueMovement(
      String clientReference, long amountMinor, String currency, String beneficiaryRef) {
    String body =
        "{\"clientReference\":\""
            + clientReference
            + "\",\"amountMinor\":"
            + amountMinor
            + ",\"currency\":\""
            + currency
            + "\",\"beneficiaryRef\":\""
            + beneficiaryRef
            + "\"}";
    TestHttp rail =
        new TestHttp(
            HttpClient.newHttpClient(),
            stack.stub().baseUrl(),
            Duration.ofSeconds(30),
            request -> LockServers.identity().tokens(FencepostRole.RAIL_PROXY).currentToken());
    return TestHttp.unchecked(() -> rail.post("/rail/payments", body));
  }

  /** The same movement again for a payout: what a path around both guards would send. */
  HttpResponse<String> rogueMovement(Payout payout) {
    return rogueMovement(
        payout.clientReference(), payout.amountMinor(), payout.currency(), payout.beneficiaryRef());
  }

  /** A reconciliation window from {@code from} (to the second) to a second from now. */
  static String window(Instant from) {
    return "windowFrom="
        + from.truncatedTo(ChronoUnit.SECONDS)
        + ",windowTo="
        + Instant.now().plusSeconds(1).truncatedTo(ChronoUnit.SECONDS);
  }

  /** An OPERATOR's calls to a process's management port. */
  static TestHttp management(JavaProcess process) {
    return new TestHttp(
        HttpClient.newHttpClient(),
        process.managementUrl(),
        Duration.ofSeconds(30),
        request -> LockServers.identity().tokens(FencepostRole.OPERATOR).currentToken());
  }

  /** An OPERATOR's calls to a service's API port. */
  static TestHttp operator(JavaProcess service) {
    return new TestHttp(
        HttpClient.newHttpClient(),
        service.baseUrl(),
        Duration.ofSeconds(30),
        request -> LockServers.identity().tokens(FencepostRole.OPERATOR).currentToken());
  }

  /**
   * Runs a PromQL query the day's runbook says (checked against its text) through Prometheus's API,
   * records it as an executed step and returns the samples for the caller's assertions.
   */
  List<Sample> runbookQuery(GameDay day, String query) {
    day.runbook().requireSays(query);
    List<Sample> samples = obs.prometheus().query(query);
    day.step(query, "PromQL through Prometheus's API", describe(samples));
    return samples;
  }

  static String describe(List<Sample> samples) {
    if (samples.isEmpty()) {
      return "no series";
    }
    return samples.stream()
        .map(
            s ->
                s.labels().entrySet().stream()
                        .filter(e -> !e.getKey().equals("__name__"))
                        .filter(e -> !e.getKey().equals("instance"))
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .collect(Collectors.joining(",", "{", "}"))
                    + " "
                    + value(s.value()))
        .collect(Collectors.joining("; "));
  }

  static String value(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return v > 0 ? "+Inf" : String.valueOf(v);
    }
    return v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.3g", v);
  }

  static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }
}
