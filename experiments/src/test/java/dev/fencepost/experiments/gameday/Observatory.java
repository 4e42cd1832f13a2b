package dev.fencepost.experiments.gameday;

import dev.fencepost.experiments.harness.LockServers;
import dev.fencepost.experiments.harness.Settings;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.launcher.prometheus.PrometheusServer;
import dev.fencepost.launcher.prometheus.PrometheusServer.Alert;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.awaitility.Awaitility;

/**
 * The game days' monitoring: one real Prometheus for this test JVM, loaded with the repository's
 * rule file ({@code ops/prometheus/fencepost-rules.yaml}, the one the Helm chart ships), scraping
 * over HTTPS the management port of every process a game day registers. Detection is read where an
 * on-call tool would read it, from Prometheus's alerts API.
 */
final class Observatory {

  /**
   * Scrape and rule evaluation interval. Shorter than a cluster's (the chart's monitoring interval
   * is 30 s), so a game day measures the rules' own delays ({@code for}, windows) rather than
   * waiting on the scrape; the report states it beside every latency.
   */
  static final Duration INTERVAL = Duration.ofSeconds(5);

  private static Observatory shared;

  private final PrometheusServer prometheus;

  private Observatory() {
    prometheus =
        PrometheusServer.builder(Settings.runsDir().resolve("_prometheus"))
            .ruleFile(
                Runbook.Repository.root()
                    .resolve("ops")
                    .resolve("prometheus")
                    .resolve("fencepost-rules.yaml"))
            .caFile(LockServers.tls().caFile())
            .scrapeInterval(INTERVAL)
            .evaluationInterval(INTERVAL)
            .start();
  }

  static synchronized Observatory shared() {
    if (shared == null) {
      shared = new Observatory();
      Runtime.getRuntime().addShutdownHook(new Thread(shared.prometheus::close));
    }
    return shared;
  }

  PrometheusServer prometheus() {
    return prometheus;
  }

  /** Scrapes {@code process} from now on and waits for its first successful scrape. */
  JavaProcess watch(String app, JavaProcess process) {
    prometheus.scrape(app, instance(process), process.managementUrl());
    prometheus.awaitScraped(instance(process), Duration.ofMinutes(3));
    return process;
  }

  void forget(JavaProcess process) {
    prometheus.forget(instance(process));
  }

  /**
   * A name per process: scenarios reuse worker names (every run has its w1), and two game days may
   * run side by side, so the name alone would make one target replace the other.
   */
  private static String instance(JavaProcess process) {
    return process.name() + "-" + process.managementPort();
  }

  /**
   * Waits until {@code alert} fires with these labels (a subset) and records the moment on {@code
   * day}; polls the API every 250 ms, so the latency's resolution is that.
   */
  Alert awaitFiring(GameDay day, Map<String, String> labels, Duration atMost) {
    // A game day checked after others may find its alert long firing: then the moment it fired
    // is its pending start plus its for:, as Prometheus reports them (to one evaluation).
    Optional<Alert> already = find(day.alert(), labels, "firing");
    if (already.isPresent()) {
      Alert a = already.get();
      Duration hold = prometheus.alertHoldDurations().getOrDefault(day.alert(), Duration.ZERO);
      day.fired(a.activeAt().plus(hold));
      return a;
    }
    Alert[] seen = new Alert[1];
    Awaitility.await(
            day.alert() + " firing " + labels + " (Prometheus log " + prometheus.log() + ")")
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              Optional<Alert> a = find(day.alert(), labels, "firing");
              a.ifPresent(x -> seen[0] = x);
              return a.isPresent();
            });
    day.fired(Instant.now());
    return seen[0];
  }

  /**
   * Waits until {@code alert} is pending or firing with these labels, and returns it: its {@code
   * activeAt} is when Prometheus first evaluated its expression true (to one evaluation).
   */
  Alert awaitActive(String alert, Map<String, String> labels, Duration atMost) {
    Alert[] seen = new Alert[1];
    Awaitility.await(alert + " pending " + labels + " (Prometheus log " + prometheus.log() + ")")
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              Optional<Alert> a = find(alert, labels, null);
              a.ifPresent(x -> seen[0] = x);
              return a.isPresent();
            });
    return seen[0];
  }

  /** Waits until {@code alert} with these labels is neither pending nor firing. */
  Duration awaitResolved(String alert, Map<String, String> labels, Duration atMost) {
    Instant from = Instant.now();
    Awaitility.await(alert + " resolved " + labels)
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(250))
        .until(() -> find(alert, labels, null).isEmpty());
    return Duration.between(from, Instant.now());
  }

  /** Whether {@code alert} is pending or firing with these labels now. */
  boolean active(String alert, Map<String, String> labels) {
    return find(alert, labels, null).isPresent();
  }

  private Optional<Alert> find(String alert, Map<String, String> labels, String state) {
    return prometheus.alerts().stream()
        .filter(a -> a.name().equals(alert))
        .filter(a -> state == null || a.state().equals(state))
        .filter(a -> a.labels().entrySet().containsAll(labels.entrySet()))
        .findFirst();
  }
}
