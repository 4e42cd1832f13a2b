package dev.fencepost.launcher.prometheus;

import dev.fencepost.launcher.DataDirectories;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.launcher.process.ProcessReaper;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real Prometheus server (Debian's {@code prometheus} package) on a loopback port, scraping the
 * management ports of the processes it is told about and evaluating a rule file: what the game days
 * measure detection against. Targets are registered while it runs (a file-based service discovery
 * file it watches), so a worker started mid-scenario is scraped too.
 *
 * <p>Every target is scraped over HTTPS against one CA (the run's, ADR 0150); the scrape needs no
 * token, as on a cluster (the management port, ADR 0151). Its API answers what fires ({@link
 * #alerts()}), queries ({@link #query(String)}) and which metric names it has seen ({@link
 * #metricNames()}). Stopped on {@link #close()}; it dies with this JVM in any case ({@link
 * ProcessReaper}).
 */
public final class PrometheusServer implements AutoCloseable {

  /** What to install when the binary is missing (it also provides promtool). */
  public static final String INSTALL_HINT = "apt-get install -y prometheus";

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final Path dir;
  private final Path targetsFile;
  private final Process process;
  private final Process watchdog;
  private final int port;
  private final Duration scrapeInterval;
  private final Duration evaluationInterval;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final Map<String, Map<String, Object>> targets = new LinkedHashMap<>();

  private PrometheusServer(Builder b) throws IOException {
    this.dir = b.dir;
    this.scrapeInterval = b.scrapeInterval;
    this.evaluationInterval = b.evaluationInterval;
    Files.createDirectories(dir);
    // A fresh store every start: samples of an earlier run in the same directory would make alerts
    // about events of that run fire in this one.
    DataDirectories.delete(dir.resolve("data"));
    this.targetsFile = dir.resolve("targets").resolve("fencepost.json");
    Files.createDirectories(targetsFile.getParent());
    writeTargets();
    Path rules = dir.resolve("rules.yaml");
    Files.copy(b.ruleFile, rules, StandardCopyOption.REPLACE_EXISTING);
    Path config = dir.resolve("prometheus.yml");
    Files.writeString(config, config(rules, b.caFile));
    this.port = JavaProcess.freeLoopbackPort();
    List<String> command =
        List.of(
            locate(System::getenv).toString(),
            "--config.file=" + config,
            "--storage.tsdb.path=" + dir.resolve("data"),
            "--web.listen-address=127.0.0.1:" + port,
            // Short look-back: a target that stops answering drops out of the answers quickly.
            "--query.lookback-delta=1m",
            "--log.format=json");
    this.process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(
                ProcessBuilder.Redirect.appendTo(dir.resolve("prometheus.log").toFile()))
            .start();
    ProcessReaper.register(process);
    this.watchdog = ProcessReaper.watchdog(process);
    awaitReady(b.startTimeout);
  }

  /** A server keeping its configuration, data and log under {@code dir}. */
  public static Builder builder(Path dir) {
    return new Builder(dir);
  }

  /** {@code http://127.0.0.1:<port>}: its web UI and API. */
  public String baseUrl() {
    return "http://127.0.0.1:" + port;
  }

  public Duration scrapeInterval() {
    return scrapeInterval;
  }

  public Duration evaluationInterval() {
    return evaluationInterval;
  }

  /**
   * Scrapes {@code managementUrl}'s {@code /actuator/prometheus} from now on, labelled {@code app}
   * and {@code instance} (the process's name: instance names are few and chosen by the run).
   */
  public synchronized void scrape(String app, String instance, String managementUrl) {
    URI uri = URI.create(managementUrl);
    if (!"127.0.0.1".equals(uri.getHost())) {
      throw new IllegalArgumentException("only loopback targets are scraped: " + managementUrl);
    }
    Map<String, Object> group = new LinkedHashMap<>();
    group.put("targets", List.of(uri.getHost() + ":" + uri.getPort()));
    group.put(
        "labels",
        Map.of("app", app, "fencepost_instance", instance, "__scheme__", uri.getScheme()));
    targets.put(instance, group);
    writeTargets();
  }

  /** Stops scraping {@code instance} (a process the scenario ended on purpose). */
  public synchronized void forget(String instance) {
    targets.remove(instance);
    writeTargets();
  }

  /** Waits until Prometheus has scraped {@code instance} successfully at least once. */
  public void awaitScraped(String instance, Duration atMost) {
    Instant deadline = Instant.now().plus(atMost);
    String last = "not discovered";
    while (Instant.now().isBefore(deadline)) {
      for (JsonNode t : get("/api/v1/targets?state=active").path("data").path("activeTargets")) {
        if (instance.equals(t.path("labels").path("fencepost_instance").asString())) {
          last = t.path("health").asString() + " " + t.path("lastError").asString();
          if ("up".equals(t.path("health").asString())) {
            return;
          }
        }
      }
      pause(Duration.ofMillis(250));
    }
    throw new IllegalStateException(
        "Prometheus did not scrape "
            + instance
            + " within "
            + atMost
            + ": "
            + last
            + "; log "
            + dir.resolve("prometheus.log"));
  }

  /** Every alert Prometheus has pending or firing now. */
  public List<Alert> alerts() {
    List<Alert> alerts = new ArrayList<>();
    for (JsonNode a : get("/api/v1/alerts").path("data").path("alerts")) {
      Map<String, String> labels = new LinkedHashMap<>();
      a.path("labels").properties().forEach(e -> labels.put(e.getKey(), e.getValue().asString()));
      Map<String, String> annotations = new LinkedHashMap<>();
      a.path("annotations")
          .properties()
          .forEach(e -> annotations.put(e.getKey(), e.getValue().asString()));
      String activeAt = a.path("activeAt").asString("");
      alerts.add(
          new Alert(
              labels.getOrDefault("alertname", ""),
              labels,
              annotations,
              a.path("state").asString(),
              activeAt.isEmpty() ? null : Instant.parse(activeAt)));
    }
    return alerts;
  }

  /** Every alerting rule's {@code for:} duration, by alert name, as Prometheus loaded them. */
  public Map<String, Duration> alertHoldDurations() {
    Map<String, Duration> holds = new LinkedHashMap<>();
    for (JsonNode group : get("/api/v1/rules?type=alert").path("data").path("groups")) {
      for (JsonNode rule : group.path("rules")) {
        holds.put(
            rule.path("name").asString(),
            Duration.ofMillis(Math.round(rule.path("duration").asDouble(0) * 1000)));
      }
    }
    return holds;
  }

  /** The alert named {@code name} if it fires now. */
  public Optional<Alert> firing(String name) {
    return alerts().stream()
        .filter(a -> a.name().equals(name) && a.state().equals("firing"))
        .findFirst();
  }

  /** The result vector of an instant query: each series' labels with its value. */
  public List<Sample> query(String expr) {
    JsonNode data =
        get("/api/v1/query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8)).path("data");
    List<Sample> samples = new ArrayList<>();
    for (JsonNode r : data.path("result")) {
      Map<String, String> labels = new LinkedHashMap<>();
      r.path("metric").properties().forEach(e -> labels.put(e.getKey(), e.getValue().asString()));
      samples.add(new Sample(labels, Double.parseDouble(r.path("value").path(1).asString("NaN"))));
    }
    return samples;
  }

  /** Every metric name in its storage: what the scraped applications really export. */
  public TreeSet<String> metricNames() {
    TreeSet<String> names = new TreeSet<>();
    get("/api/v1/label/__name__/values").path("data").forEach(n -> names.add(n.asString()));
    return names;
  }

  /** Its log file. */
  public Path log() {
    return dir.resolve("prometheus.log");
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    ProcessReaper.forget(process);
    ProcessReaper.stopWatchdog(watchdog);
  }

  /** A pending or firing alert as the API reports it. */
  public record Alert(
      String name,
      Map<String, String> labels,
      Map<String, String> annotations,
      String state,
      Instant activeAt) {}

  /** One series of a query's answer. */
  public record Sample(Map<String, String> labels, double value) {}

  private String config(Path rules, Path caFile) {
    String interval = seconds(scrapeInterval);
    StringBuilder out = new StringBuilder();
    out.append("global:\n")
        .append("  scrape_interval: ")
        .append(interval)
        .append('\n')
        .append("  scrape_timeout: ")
        .append(interval)
        .append('\n')
        .append("  evaluation_interval: ")
        .append(seconds(evaluationInterval))
        .append('\n')
        .append("rule_files:\n")
        .append("  - ")
        .append(rules.toAbsolutePath())
        .append('\n')
        .append("scrape_configs:\n")
        .append("  - job_name: fencepost\n")
        .append("    metrics_path: /actuator/prometheus\n")
        .append("    file_sd_configs:\n")
        .append("      - files: [")
        .append(targetsFile.toAbsolutePath())
        .append("]\n")
        .append("        refresh_interval: 5s\n");
    if (caFile != null) {
      out.append("    tls_config:\n")
          .append("      ca_file: ")
          .append(caFile.toAbsolutePath())
          .append('\n');
    }
    return out.toString();
  }

  private static String seconds(Duration d) {
    return Math.max(1, d.toSeconds()) + "s";
  }

  private synchronized void writeTargets() {
    try {
      Path tmp = targetsFile.resolveSibling("fencepost.json.tmp");
      Files.writeString(tmp, JSON.writeValueAsString(new ArrayList<>(targets.values())));
      Files.move(
          tmp, targetsFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void awaitReady(Duration atMost) {
    Instant deadline = Instant.now().plus(atMost);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "Prometheus exited at start with " + process.exitValue() + "; log " + log());
      }
      try {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create(baseUrl() + "/-/ready"))
                    .timeout(Duration.ofSeconds(2))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      pause(Duration.ofMillis(200));
    }
    throw new IllegalStateException("Prometheus not ready within " + atMost + "; log " + log());
  }

  private JsonNode get(String pathAndQuery) {
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(baseUrl() + pathAndQuery))
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      JsonNode body = JSON.readTree(r.body());
      if (r.statusCode() != 200 || !"success".equals(body.path("status").asString())) {
        throw new IllegalStateException(
            "Prometheus answered " + r.statusCode() + " to " + pathAndQuery + ": " + r.body());
      }
      return body;
    } catch (IOException e) {
      throw new UncheckedIOException("Prometheus did not answer " + pathAndQuery, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void pause(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** {@code PROMETHEUS_BIN} if set, else {@code prometheus} on {@code PATH}; never a skip. */
  static Path locate(UnaryOperator<String> environment) {
    String configured = environment.apply("PROMETHEUS_BIN");
    if (configured != null && !configured.isBlank()) {
      Path path = Path.of(configured);
      if (Files.isExecutable(path)) {
        return path;
      }
      throw new IllegalStateException(
          "PROMETHEUS_BIN="
              + configured
              + " is not an executable file; install with: "
              + INSTALL_HINT);
    }
    String searchPath = environment.apply("PATH");
    if (searchPath != null) {
      for (String directory : searchPath.split(File.pathSeparator)) {
        Path candidate = directory.isEmpty() ? null : Path.of(directory, "prometheus");
        if (candidate != null && Files.isExecutable(candidate) && !Files.isDirectory(candidate)) {
          return candidate;
        }
      }
    }
    throw new IllegalStateException(
        "prometheus is not installed: no executable 'prometheus' on PATH and PROMETHEUS_BIN is not"
            + " set. The game days run a real Prometheus and are never skipped; install it with: "
            + INSTALL_HINT);
  }

  /** Where it keeps its files, the rules it evaluates, how often it scrapes and evaluates. */
  public static final class Builder {
    private final Path dir;
    private Path ruleFile;
    private Path caFile;
    private Duration scrapeInterval = Duration.ofSeconds(5);
    private Duration evaluationInterval = Duration.ofSeconds(5);
    private Duration startTimeout = Duration.ofMinutes(1);

    private Builder(Path dir) {
      this.dir = dir;
    }

    /** The rule file it loads (the repository's one source, ADR 0175). */
    public Builder ruleFile(Path file) {
      this.ruleFile = file;
      return this;
    }

    /** The CA the scraped HTTPS targets' certificates are checked against. */
    public Builder caFile(Path file) {
      this.caFile = file;
      return this;
    }

    public Builder scrapeInterval(Duration interval) {
      this.scrapeInterval = interval;
      return this;
    }

    public Builder evaluationInterval(Duration interval) {
      this.evaluationInterval = interval;
      return this;
    }

    public Builder startTimeout(Duration timeout) {
      this.startTimeout = timeout;
      return this;
    }

    public PrometheusServer start() {
      if (ruleFile == null || !Files.isRegularFile(ruleFile)) {
        throw new IllegalArgumentException("a rule file is needed: " + ruleFile);
      }
      try {
        return new PrometheusServer(this);
      } catch (IOException e) {
        throw new UncheckedIOException("could not start Prometheus in " + dir, e);
      }
    }
  }
}
