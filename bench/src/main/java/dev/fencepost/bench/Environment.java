package dev.fencepost.bench;

import com.sun.management.OperatingSystemMXBean;
import dev.fencepost.launcher.etcd.EtcdCluster;
import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The shared stores and servers of one suite run: one embedded PostgreSQL (lockdb for the lock
 * server, benchdb for the JDBC peers), one etcd member, and two lock-server JVMs (etcd and
 * PostgreSQL backend) started as child processes from this JVM's class path, so their CPU can be
 * read per process. Everything binds 127.0.0.1 and dies with this JVM.
 */
public final class Environment implements AutoCloseable {

  private final Path workDir;
  private final EmbeddedPostgresServer postgres;
  private final PostgresDatabase benchDb;
  private final PostgresDatabase lockDb;
  private final EtcdCluster etcd;
  private final LockServerProcess etcdServer;
  private final LockServerProcess postgresServer;
  private final long postmasterPid;
  private final HttpClient http = HttpClient.newHttpClient();

  private Environment(
      Path workDir,
      EmbeddedPostgresServer postgres,
      PostgresDatabase benchDb,
      PostgresDatabase lockDb,
      EtcdCluster etcd,
      LockServerProcess etcdServer,
      LockServerProcess postgresServer,
      long postmasterPid) {
    this.workDir = workDir;
    this.postgres = postgres;
    this.benchDb = benchDb;
    this.lockDb = lockDb;
    this.etcd = etcd;
    this.etcdServer = etcdServer;
    this.postgresServer = postgresServer;
    this.postmasterPid = postmasterPid;
  }

  /** Starts everything; {@code serverJvmArgs} go to both lock-server JVMs (e.g. JFR). */
  public static Environment start(Path workDir, List<String> serverJvmArgs) throws Exception {
    Files.createDirectories(workDir);
    EmbeddedPostgresServer postgres = EmbeddedPostgresServer.startDedicated();
    EtcdCluster etcd = EtcdCluster.builder().members(1).start();
    PostgresDatabase lockDb = postgres.createDatabase("bench_lockdb");
    PostgresDatabase benchDb = postgres.createDatabase("bench_peers");
    CompletableFuture<LockServerProcess> onEtcd =
        CompletableFuture.supplyAsync(
            () ->
                LockServerProcess.start(
                    "lock-server-etcd",
                    workDir,
                    serverJvmArgs,
                    List.of(
                        "--fencepost.lock.backend=etcd",
                        "--fencepost.lock.etcd.endpoints=" + etcd.endpoints(),
                        "--fencepost.lock.etcd.key-prefix=/bench-server/",
                        "--fencepost.lock.min-ttl=2s")));
    CompletableFuture<LockServerProcess> onPostgres =
        CompletableFuture.supplyAsync(
            () ->
                LockServerProcess.start(
                    "lock-server-postgres",
                    workDir,
                    serverJvmArgs,
                    List.of(
                        "--spring.datasource.url=" + lockDb.jdbcUrl(),
                        "--spring.datasource.username=" + lockDb.username(),
                        "--spring.datasource.password=" + lockDb.password())));
    long postmaster;
    try (Connection c = benchDb.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      postmaster =
          ProcessHandle.of(rs.getLong(1))
              .flatMap(ProcessHandle::parent)
              .map(ProcessHandle::pid)
              .orElse(-1L);
    }
    return new Environment(
        workDir,
        postgres,
        benchDb,
        lockDb,
        etcd,
        onEtcd.get(180, TimeUnit.SECONDS),
        onPostgres.get(180, TimeUnit.SECONDS),
        postmaster);
  }

  public Path workDir() {
    return workDir;
  }

  public DataSource benchDataSource() {
    return benchDb.dataSource();
  }

  /** A new pool on benchdb of its own size; the caller closes it. */
  public com.zaxxer.hikari.HikariDataSource benchPool(int size) {
    return postgres.pool(benchDb.name(), size);
  }

  public String etcdEndpoints() {
    return etcd.endpoints();
  }

  public LockServerProcess etcdServer() {
    return etcdServer;
  }

  public LockServerProcess postgresServer() {
    return postgresServer;
  }

  /** Cumulative CPU time in ns per process of this run, by role. */
  public Map<String, Long> cpuNanos() {
    Map<String, Long> cpu = new LinkedHashMap<>();
    cpu.put("harness", harnessCpu());
    cpu.put("etcd", pidCpu(etcd.member(0).pid().orElse(-1L), false));
    cpu.put("postgres", pidCpu(postmasterPid, true));
    cpu.put("server-etcd", pidCpu(etcdServer.pid(), false));
    cpu.put("server-pg", pidCpu(postgresServer.pid(), false));
    return cpu;
  }

  private static long harnessCpu() {
    return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** utime+stime from /proc (via ProcessHandle), optionally summed over live descendants. */
  static long pidCpu(long pid, boolean withDescendants) {
    if (pid <= 0) {
      return 0;
    }
    return ProcessHandle.of(pid)
        .map(
            h -> {
              long total = h.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
              if (withDescendants) {
                total +=
                    h.descendants()
                        .mapToLong(
                            d -> d.info().totalCpuDuration().map(Duration::toNanos).orElse(0L))
                        .sum();
              }
              return total;
            })
        .orElse(0L);
  }

  /** etcd's WAL fsync count, from its /metrics. */
  public long etcdFsyncs() {
    try {
      String body =
          http.send(
                  HttpRequest.newBuilder(URI.create(etcd.member(0).clientUrl() + "/metrics"))
                      .timeout(Duration.ofSeconds(5))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      for (String line : body.split("\n")) {
        if (line.startsWith("etcd_disk_wal_fsync_duration_seconds_count")) {
          return (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1).trim());
        }
      }
      return -1;
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** PostgreSQL's WAL sync count (PostgreSQL 17: pg_stat_wal.wal_sync), server-wide. */
  public long postgresWalSyncs() {
    try (Connection c =
            DriverManager.getConnection(
                postgres.jdbcUrl("postgres"),
                EmbeddedPostgresServer.USER,
                EmbeddedPostgresServer.PASSWORD);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT wal_sync FROM pg_stat_wal")) {
      return rs.next() ? rs.getLong(1) : -1;
    } catch (Exception e) {
      return -1;
    }
  }

  /**
   * The next transaction id PostgreSQL will assign, server-wide: its delta counts write
   * transactions (commits) exactly and at once, unlike the statistics views, which a busy backend
   * flushes only every so often. Reading it assigns no id.
   */
  public long postgresTransactionIds() {
    try (Connection c =
            DriverManager.getConnection(
                postgres.jdbcUrl("postgres"),
                EmbeddedPostgresServer.USER,
                EmbeddedPostgresServer.PASSWORD);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint")) {
      return rs.next() ? rs.getLong(1) : -1;
    } catch (Exception e) {
      return -1;
    }
  }

  public String postgresVersion() {
    try (Connection c = benchDb.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT current_setting('server_version') || ', synchronous_commit='"
                    + " || current_setting('synchronous_commit') || ', fsync='"
                    + " || current_setting('fsync')")) {
      return rs.next() ? rs.getString(1) : "?";
    } catch (Exception e) {
      return "?";
    }
  }

  @Override
  public void close() {
    List<AutoCloseable> all = new ArrayList<>(List.of(etcdServer, postgresServer, benchDb, lockDb));
    all.add(etcd);
    all.add(postgres);
    for (AutoCloseable c : all) {
      try {
        c.close();
      } catch (Exception ignored) {
        // best effort at the end of a run
      }
    }
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** One lock-server JVM started from this JVM's class path. */
  public static final class LockServerProcess implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Process watchdog;
    private final String baseUrl;
    private final Path log;

    private LockServerProcess(
        String name, Process process, Process watchdog, String baseUrl, Path log) {
      this.name = name;
      this.process = process;
      this.watchdog = watchdog;
      this.baseUrl = baseUrl;
      this.log = log;
    }

    static LockServerProcess start(
        String name, Path workDir, List<String> jvmArgs, List<String> appArgs) {
      int port = freePort();
      List<String> command = new ArrayList<>();
      command.add(ProcessHandle.current().info().command().orElse("java"));
      command.add("-Xms256m");
      command.add("-Xmx1g");
      command.addAll(jvmArgs);
      command.add("-cp");
      command.add(System.getProperty("java.class.path"));
      command.add("dev.fencepost.lockserver.LockServerApplication");
      command.add("--server.port=" + port);
      command.add("--server.address=127.0.0.1");
      command.add("--spring.main.banner-mode=off");
      command.add("--logging.structured.format.console=");
      command.add("--logging.level.root=WARN");
      command.addAll(appArgs);
      Path log = workDir.resolve(name + ".log");
      try {
        Process process =
            new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()))
                .start();
        // Dies with this JVM even on SIGKILL: a watchdog waits for our pid and kills the child.
        Process watchdog =
            new ProcessBuilder(
                    "sh",
                    "-c",
                    "tail --pid="
                        + ProcessHandle.current().pid()
                        + " -f /dev/null; kill -KILL "
                        + process.pid()
                        + " 2>/dev/null")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
        LockServerProcess server =
            new LockServerProcess(name, process, watchdog, "http://127.0.0.1:" + port, log);
        server.awaitReady(Duration.ofSeconds(150));
        return server;
      } catch (IOException e) {
        throw new UncheckedIOException("could not start " + name, e);
      }
    }

    private void awaitReady(Duration timeout) {
      HttpClient client = HttpClient.newHttpClient();
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        if (!process.isAlive()) {
          throw new IllegalStateException(name + " exited at start; see " + log);
        }
        try {
          HttpResponse<Void> r =
              client.send(
                  HttpRequest.newBuilder(URI.create(baseUrl + "/actuator/health/readiness"))
                      .timeout(Duration.ofSeconds(2))
                      .build(),
                  HttpResponse.BodyHandlers.discarding());
          if (r.statusCode() == 200) {
            return;
          }
        } catch (IOException e) {
          // not listening yet
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
        try {
          TimeUnit.MILLISECONDS.sleep(200);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
      throw new IllegalStateException(name + " not ready within " + timeout + "; see " + log);
    }

    public String name() {
      return name;
    }

    public String baseUrl() {
      return baseUrl;
    }

    public long pid() {
      return process.isAlive() ? process.pid() : -1;
    }

    public Path log() {
      return log;
    }

    /** Runs {@code jcmd <pid> args...} against this server and returns its output. */
    public String jcmd(String... args) {
      List<String> command = new ArrayList<>();
      String javaHome = System.getProperty("java.home");
      File jcmd = new File(javaHome, "bin/jcmd");
      command.add(jcmd.exists() ? jcmd.getPath() : "jcmd");
      command.add(Long.toString(process.pid()));
      command.addAll(List.of(args));
      try {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor(60, TimeUnit.SECONDS);
        return out;
      } catch (IOException e) {
        return "jcmd failed: " + e.getMessage();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "interrupted";
      }
    }

    @Override
    public void close() {
      process.destroy();
      try {
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
      watchdog.descendants().forEach(ProcessHandle::destroyForcibly);
      watchdog.destroyForcibly();
    }
  }
}
