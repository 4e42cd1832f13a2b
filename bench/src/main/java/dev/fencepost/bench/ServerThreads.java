package dev.fencepost.bench;

import dev.fencepost.launcher.LocalTls;
import dev.fencepost.launcher.process.JavaProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a lock server's CPU goes, by thread: acquire+release pairs from {@code probe.clients} (8)
 * starter clients for {@code probe.warmupSeconds} (150), then {@code probe.seconds} (30) measured.
 * Per thread group (the thread name without its digits) it prints the CPU per pair from {@code
 * /proc/<pid>/task/<tid>/schedstat}, and from the server's own scrape the requests and backend
 * operations per pair. JIT compiler and GC threads show up beside the request threads, which a JFR
 * execution profile does not show. A diagnostic, not a benchmark: it prints no latency and its
 * figures are read only as shares. With {@code -Dprobe.statements=true} PostgreSQL keeps {@code
 * pg_stat_statements}, and each lockdb statement's calls and execution time per pair are printed
 * too; {@code probe.serverJvmArgs} go to both lock servers (a JFR recording, say, with {@code
 * {server}} in the file name). Run it alone on a quiet machine:
 *
 * <pre>
 * java -Dlogback.configurationFile=bench/logback-harness.xml -Dfencepost.apps.dir=bench/target/apps \
 *   -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.fencepost.bench.ServerThreads
 * </pre>
 */
public final class ServerThreads {

  private static final HttpClient SCRAPER =
      HttpClient.newBuilder().sslContext(LocalTls.forThisJvm().sslContext()).build();

  private ServerThreads() {}

  public static void main(String[] args) throws Exception {
    int clients = Integer.getInteger("probe.clients", 8);
    long warmUp = LockBench.seconds("probe.warmupSeconds", "150").toNanos();
    long measured = LockBench.seconds("probe.seconds", "30").toNanos();
    System.out.println("commit " + Provenance.commit() + ", load " + Provenance.loadAverage());
    boolean statements = Boolean.getBoolean("probe.statements");
    try (Environment env =
        Environment.start(
            Path.of("bench/target/server-threads"),
            LockBench.splitArgs(System.getProperty("probe.serverJvmArgs", "")),
            statements)) {
      for (String id : System.getProperty("probe.targets", "E3,P2").split(",")) {
        boolean etcd = id.equals("E3");
        JavaProcess server = etcd ? env.etcdServer() : env.postgresServer();
        LockTarget target =
            new LockServerTarget(id, server.baseUrl(), etcd ? Store.ETCD : Store.POSTGRES);
        List<LockTarget.Client> pool = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
          pool.add(target.client(i));
        }
        drive(id, pool, warmUp);
        long pid = server.pid();
        Map<String, Long> threadsBefore = threadCpu(pid);
        long processBefore = Environment.pidCpu(pid, false);
        Map<String, Double> countsBefore = counts(server);
        long postgresBefore = env.cpuNanos().get("postgres");
        Map<String, double[]> statementsBefore =
            statements && !etcd ? env.lockDbStatements() : Map.of();
        long pairs = drive(id, pool, measured);
        long postgresCpu = env.cpuNanos().get("postgres") - postgresBefore;
        Map<String, double[]> statementsAfter =
            statements && !etcd ? env.lockDbStatements() : Map.of();
        Map<String, Long> threadsAfter = threadCpu(pid);
        long process = Environment.pidCpu(pid, false) - processBefore;
        Map<String, Double> countsAfter = counts(server);
        System.out.printf(
            "%n%s: %d pairs in %.0f s from %d clients (%.0f/s), process CPU %.3f ms per pair, load"
                + " %s%n",
            id,
            pairs,
            measured / 1e9,
            clients,
            pairs / (measured / 1e9),
            process / 1e6 / pairs,
            Provenance.loadAverage());
        System.out.printf(
            "PostgreSQL (postmaster and live backends) CPU %.3f ms per pair%n",
            postgresCpu / 1e6 / pairs);
        printStatements(statementsBefore, statementsAfter, pairs);
        System.out.println("| thread group | CPU ms per pair |\n|---|---|");
        threadsAfter.entrySet().stream()
            .map(
                e ->
                    Map.entry(
                        e.getKey(), e.getValue() - threadsBefore.getOrDefault(e.getKey(), 0L)))
            .filter(e -> e.getValue() * 1000 >= 1_000_000L * pairs) // at least 1 µs per pair
            .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
            .forEach(
                e -> System.out.printf("| %s | %.3f |%n", e.getKey(), e.getValue() / 1e6 / pairs));
        System.out.println("| (per pair, from the scrape) | |");
        countsAfter.forEach(
            (series, v) -> {
              double d = v - countsBefore.getOrDefault(series, 0.0);
              if (d > 0) {
                System.out.printf("| %s | %.3f |%n", series, d / pairs);
              }
            });
        for (LockTarget.Client c : pool) {
          c.close();
        }
      }
    }
    System.exit(0);
  }

  /** lockdb's statements in the window: calls and execution ms per pair, costliest first. */
  private static void printStatements(
      Map<String, double[]> before, Map<String, double[]> after, long pairs) {
    if (after.isEmpty()) {
      return;
    }
    System.out.println("| exec ms per pair | calls per pair | lockdb statement |\n|---|---|---|");
    after.entrySet().stream()
        .map(
            e -> {
              double[] b = before.getOrDefault(e.getKey(), new double[2]);
              return Map.entry(
                  e.getKey(),
                  new double[] {
                    (e.getValue()[0] - b[0]) / pairs, (e.getValue()[1] - b[1]) / pairs
                  });
            })
        .filter(e -> e.getValue()[0] >= 0.001)
        .sorted((a, b) -> Double.compare(b.getValue()[1], a.getValue()[1]))
        .forEach(
            e ->
                System.out.printf(
                    "| %.4f | %.3f | `%s` |%n",
                    e.getValue()[1], e.getValue()[0], e.getKey().replaceAll("\\s+", " ")));
  }

  /** Closed-loop acquire+release pairs, one key per client; returns the pairs done. */
  private static long drive(String id, List<LockTarget.Client> clients, long nanos) {
    LoadGenerator.Result r =
        LoadGenerator.closedLoop(
            clients.size(),
            Duration.ofNanos(nanos),
            (worker, iteration) -> {
              String key = "threads-" + id + "-" + worker;
              LockTarget.Client client = clients.get(worker);
              long began = System.nanoTime();
              client.release(key, client.acquire(key));
              return System.nanoTime() - began;
            });
    if (r.errors() > 0) {
      System.out.printf("%s: %d pairs failed, the first: %s%n", id, r.errors(), r.firstError());
    }
    return r.operations();
  }

  /**
   * CPU ns per thread group of {@code pid}: the kernel's thread names (their first 15 characters)
   * with their digits replaced by '#'.
   */
  static Map<String, Long> threadCpu(long pid) throws IOException {
    Map<String, Long> groups = new TreeMap<>();
    try (DirectoryStream<Path> tasks =
        Files.newDirectoryStream(Path.of("/proc/" + pid + "/task"))) {
      for (Path task : tasks) {
        try {
          String name = Files.readString(task.resolve("comm")).trim().replaceAll("[0-9]+", "#");
          long ns =
              Long.parseLong(Files.readString(task.resolve("schedstat")).trim().split(" ")[0]);
          groups.merge(name, ns, Long::sum);
        } catch (IOException | RuntimeException e) {
          // The thread ended between the listing and the read: its time is lost either way.
        }
      }
    }
    return groups;
  }

  /** The server's Prometheus scrape, from its management port. */
  static String scrape(JavaProcess server) throws Exception {
    return SCRAPER
        .send(
            HttpRequest.newBuilder(URI.create(server.managementUrl() + "/actuator/prometheus"))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static Map<String, Double> counts(JavaProcess server) throws Exception {
    String scrape = scrape(server);
    Map<String, Double> counts = new TreeMap<>();
    for (String line : scrape.split("\n")) {
      if (line.startsWith("http_server_requests_seconds_count")
          || line.startsWith("fencepost_lock_operations_seconds_count")) {
        int space = line.lastIndexOf(' ');
        counts.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
      }
    }
    return counts;
  }
}
