package dev.fencepost.localstack;

import dev.fencepost.launcher.LocalPlatform;
import dev.fencepost.launcher.etcd.EtcdMember;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.launcher.process.ProcessCpu;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * What one payout costs the whole platform: CPU in each process (and how much of each JVM's went to
 * its JIT compiler threads, ADR 0217), commits in each database, HTTP requests each service served,
 * bytes over loopback and WAL, TCP connections opened (ADR 0232), the WAL's full-page images and
 * the checkpoints begun (ADR 0220), read from the processes and the stores themselves (never from
 * what a worker says of itself) at points of the worker phase, and divided by the payouts finished
 * between them (the per-payout cost table of docs/benchmarks.md).
 *
 * <p>Two windows: the <em>steady</em> one, the benchmark's measured window, from the reading at
 * which the warm-up payouts have finished (or 10 % of the run's payouts, without a warm-up) to the
 * first with 90 % of the measured payouts finished as well (the workers' start-up, the warm-up and
 * the last stragglers are outside it), and the <em>whole</em> worker phase, start-up included,
 * which is what a CronJob run really costs.
 */
final class CostMeter {

  private static final Pattern REQUESTS =
      Pattern.compile("^http_server_requests_seconds_count\\{(.*)}\\s+([0-9.eE+-]+)$");
  private static final Pattern URI_LABEL = Pattern.compile("uri=\"([^\"]*)\"");
  private static final Pattern METHOD_LABEL = Pattern.compile("method=\"([^\"]*)\"");

  private final LocalPlatform platform;
  private final Supplier<List<JavaProcess>> workers;
  private final long total;
  private final long windowFrom;
  private final long windowTo;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private Reading start;
  private Reading steadyFrom;
  private Reading steadyTo;
  private final java.util.List<Reading> tenths = new java.util.ArrayList<>();
  private Reading end;
  // Every worker process of every round, and what every JVM's compiler threads have used.
  private final java.util.Set<Long> workerPids = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private final CompilerTime compilers = new CompilerTime();

  /**
   * @param workers the worker processes of the current round (those alive are read by PID; those
   *     that have exited are in this JVM's reaped children)
   * @param warmup payouts finished before the measured window opens (0: the window opens at 10 % of
   *     the measured payouts)
   * @param payouts the measured payouts, seeded after the warm-up's: the window closes at 90 % of
   *     them
   */
  CostMeter(
      LocalPlatform platform, Supplier<List<JavaProcess>> workers, long warmup, long payouts) {
    this.platform = platform;
    this.workers = workers;
    this.total = warmup + payouts;
    this.windowFrom = warmup > 0 ? warmup : (long) Math.ceil(0.10 * payouts);
    this.windowTo = warmup + (long) Math.ceil(0.90 * payouts);
  }

  /** At the start of the worker phase (once; later calls do nothing). */
  void start() {
    if (start == null) {
      start = read(0);
      tenths.add(start);
    }
  }

  /** At each poll of the worker phase with the payouts finished so far. */
  void observe(long finished) {
    if (tenths.size() <= 10 && finished >= Math.ceil(tenths.size() * total / 10.0)) {
      tenths.add(read(finished));
    }
    if (steadyFrom == null && finished >= windowFrom) {
      steadyFrom = read(finished);
    }
    if (steadyFrom != null
        && steadyTo == null
        && finished >= windowTo
        && finished > steadyFrom.finished) {
      steadyTo = read(finished);
    }
  }

  /** The costs at the end of the worker phase, {@code finished} payouts finished in all. */
  Costs end(long finished) {
    end = read(finished);
    Reading from = steadyFrom == null ? start : steadyFrom;
    Reading to = steadyTo == null ? end : steadyTo;
    java.util.List<Costs.Tenth> progress = new java.util.ArrayList<>();
    for (int i = 1; i < tenths.size(); i++) {
      progress.add(Costs.Tenth.between(tenths.get(i - 1), tenths.get(i)));
    }
    return new Costs(
        Costs.Window.between(from, to, steadyTo != null),
        Costs.Window.between(start, end, true),
        progress);
  }

  /**
   * When the measured window opened and closed (the second is the end of the run when the run ended
   * first); empty before {@link #end}.
   */
  java.util.Optional<Instant[]> window() {
    if (steadyFrom == null || end == null) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(
        new Instant[] {steadyFrom.at(), (steadyTo == null ? end : steadyTo).at()});
  }

  /** Everything counted, at one moment. */
  record Reading(
      long finished,
      long nanos,
      Instant at,
      Map<String, Long> cpuNanos,
      Map<String, Long> compilerNanos,
      Map<String, Long> commits,
      Map<String, Map<String, Long>> requests,
      long loopbackBytes,
      long tcpOpens,
      long walBytes,
      long walSyncs,
      long walFullPageImages,
      long checkpoints,
      Map<String, Costs.Statement> statements) {}

  private Reading read(long finished) {
    // The clock is read with the CPU counters, not after the scrapes and queries that follow them:
    // those take a varying time, and a short window would otherwise show more cores busy than the
    // machine has.
    long nanos = System.nanoTime();
    Instant at = Instant.now();
    Map<String, Long> cpu = new LinkedHashMap<>();
    cpu.put("workers", ProcessCpu.settledTotal(this::workerCpu));
    cpu.put("lock-server", own(platform.lockServer()));
    cpu.put("rail-proxy", own(platform.railProxy()));
    cpu.put("rail-stub", own(platform.railStub()));
    cpu.put("identity-issuer", own(platform.identity().issuer()));
    cpu.put("postgres", ProcessCpu.treeNanos(platform.postgres().postmasterPid()));
    platform
        .etcd()
        .ifPresent(
            etcd ->
                cpu.put(
                    "etcd",
                    etcd.members().stream()
                        .map(EtcdMember::pid)
                        .mapToLong(p -> p.map(ProcessCpu::treeNanos).orElse(0L))
                        .sum()));
    cpu.put("local-stack", ProcessCpu.self().ownNanos());

    // The JVMs' compiler threads, read after the rest of the CPU (ADR 0217).
    Map<String, Long> compiling = new LinkedHashMap<>();
    workers.get().stream().filter(JavaProcess::isAlive).forEach(this::compiled);
    compiling.put("workers", workerPids.stream().mapToLong(compilers::soFar).sum());
    compiling.put("lock-server", compiled(platform.lockServer()));
    compiling.put("rail-proxy", compiled(platform.railProxy()));
    compiling.put("rail-stub", compiled(platform.railStub()));
    compiling.put("identity-issuer", compiled(platform.identity().issuer()));
    compiling.put("local-stack", compiled(ProcessHandle.current().pid()));

    Map<String, Long> commits = new LinkedHashMap<>();
    JdbcClient stats = JdbcClient.create(platform.paydb().dataSource());
    Map<String, PostgresDatabase> databases = new LinkedHashMap<>();
    databases.put("lockdb", platform.lockdb());
    databases.put("paydb", platform.paydb());
    databases.put("proxydb", platform.proxydb());
    databases.put("batchdb", platform.batchdb());
    databases.forEach(
        (role, db) ->
            commits.put(
                role,
                stats
                    .sql("SELECT xact_commit FROM pg_stat_database WHERE datname = ?")
                    .param(db.name())
                    .query(Long.class)
                    .optional()
                    .orElse(0L)));
    // pg_stat_checkpointer is PostgreSQL 17's view (the launcher's server): checkpoints begun, on
    // schedule or asked for. Both one-row views in one round trip.
    long[] wal =
        stats
            .sql(
                "SELECT w.wal_bytes::bigint, w.wal_sync, w.wal_fpi, c.num_timed + c.num_requested"
                    + " FROM pg_stat_wal w, pg_stat_checkpointer c")
            .query(
                (rs, i) -> new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)})
            .single();

    Map<String, Map<String, Long>> requests = new LinkedHashMap<>();
    requests.put("lock-server", served(platform.lockServer()));
    requests.put("rail-proxy", served(platform.railProxy()));
    requests.put("rail-stub", served(platform.railStub()));
    requests.put("identity-issuer", served(platform.identity().issuer()));
    return new Reading(
        finished,
        nanos,
        at,
        cpu,
        compiling,
        commits,
        requests,
        loopbackBytes(),
        tcpOpens(),
        wal[0],
        wal[1],
        wal[2],
        wal[3],
        statements(databases));
  }

  /**
   * The worker processes' CPU, one snapshot for {@link ProcessCpu#settledTotal}: this JVM's reaped
   * children first (every worker that has exited: nothing else it started exits during the worker
   * phase), then each live worker's own, read by PID after it.
   */
  private Map<Long, ProcessCpu> workerCpu() {
    Map<Long, ProcessCpu> snapshot = new LinkedHashMap<>();
    snapshot.put(
        ProcessHandle.current().pid(), new ProcessCpu(0, ProcessCpu.self().reapedChildrenNanos()));
    for (JavaProcess worker : workers.get()) {
      workerPids.add(worker.pid());
      if (worker.isAlive()) {
        snapshot.put(worker.pid(), new ProcessCpu(ProcessCpu.of(worker.pid()).ownNanos(), 0));
      }
    }
    return snapshot;
  }

  /**
   * Calls and execution time so far of every normalised statement, by database, from {@code
   * pg_stat_statements} when the server keeps it ({@code --statements}); empty otherwise.
   */
  private Map<String, Costs.Statement> statements(Map<String, PostgresDatabase> databases) {
    Map<String, Costs.Statement> byId = new LinkedHashMap<>();
    try (Connection c = platform.postgres().adminConnection();
        Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("SHOW shared_preload_libraries")) {
        if (!rs.next() || !rs.getString(1).contains("pg_stat_statements")) {
          return byId;
        }
      }
      s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      Map<String, String> roles = new LinkedHashMap<>();
      databases.forEach((role, db) -> roles.put(db.name(), role));
      try (ResultSet rs =
          s.executeQuery(
              "SELECT d.datname, s.queryid, s.query, s.calls, s.total_exec_time"
                  + " FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid")) {
        while (rs.next()) {
          String database = roles.getOrDefault(rs.getString(1), rs.getString(1));
          byId.merge(
              database + "|" + rs.getLong(2),
              new Costs.Statement(database, rs.getString(3), rs.getLong(4), rs.getDouble(5)),
              Costs.Statement::plus);
        }
      }
    } catch (SQLException e) {
      // No statistics this time: the table simply has no statement rows.
    }
    return byId;
  }

  private long compiled(long pid) {
    return compilers.record(pid, ProcessCpu.compilerThreads(pid));
  }

  private long compiled(JavaProcess process) {
    return process == null ? 0 : compiled(process.pid());
  }

  private static long own(JavaProcess process) {
    return process == null ? 0 : ProcessCpu.of(process.pid()).ownNanos();
  }

  /**
   * Requests the service has served on its application port so far, by method and URI template,
   * from its scrape; the management port's own requests (the scrape among them) are left out.
   */
  private Map<String, Long> served(JavaProcess service) {
    Map<String, Long> byUri = new TreeMap<>();
    if (service == null || !service.isAlive()) {
      return byUri;
    }
    String body;
    try {
      body =
          http.send(
                  HttpRequest.newBuilder(
                          URI.create(service.managementUrl() + "/actuator/prometheus"))
                      .timeout(Duration.ofSeconds(5))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
    } catch (IOException e) {
      return byUri;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return byUri;
    }
    return served(body);
  }

  /**
   * Requests served by method and URI template, from a Prometheus scrape's {@code
   * http_server_requests_seconds_count} series; {@code /actuator} URIs are left out.
   */
  static Map<String, Long> served(String scrape) {
    Map<String, Long> byUri = new TreeMap<>();
    for (String line : scrape.split("\n")) {
      Matcher m = REQUESTS.matcher(line);
      if (!m.matches()) {
        continue;
      }
      String labels = m.group(1);
      Matcher uri = URI_LABEL.matcher(labels);
      Matcher method = METHOD_LABEL.matcher(labels);
      String path = uri.find() ? uri.group(1) : "?";
      if (path.startsWith("/actuator")) {
        continue;
      }
      String name = (method.find() ? method.group(1) + " " : "") + path;
      byUri.merge(name, (long) Double.parseDouble(m.group(2)), Long::sum);
    }
    return byUri;
  }

  /**
   * TCP connections opened by every process on the machine ({@code ActiveOpens} in {@code
   * /proc/net/snmp}): each is a handshake, and on the platform's TLS connections a TLS handshake on
   * both ends, that a kept connection would not have paid (ADR 0232). 0 where it cannot be read.
   */
  static long tcpOpens() {
    try {
      return activeOpens(Files.readAllLines(Path.of("/proc/net/snmp")));
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  /**
   * {@code ActiveOpens} from the lines of {@code /proc/net/snmp}: the {@code Tcp:} line of names,
   * then the {@code Tcp:} line of values in the same order.
   */
  static long activeOpens(List<String> snmp) {
    List<String> tcp = snmp.stream().filter(l -> l.startsWith("Tcp:")).toList();
    if (tcp.size() < 2) {
      throw new IllegalArgumentException("no Tcp: lines");
    }
    List<String> names = List.of(tcp.get(0).trim().split("\\s+"));
    String[] values = tcp.get(1).trim().split("\\s+");
    int at = names.indexOf("ActiveOpens");
    if (at < 0 || at >= values.length) {
      throw new IllegalArgumentException("no ActiveOpens");
    }
    return Long.parseLong(values[at]);
  }

  /** Bytes sent over the loopback interface by every process on the machine. */
  private static long loopbackBytes() {
    try {
      return Long.parseLong(
          Files.readString(Path.of("/sys/class/net/lo/statistics/tx_bytes")).trim());
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }
}
