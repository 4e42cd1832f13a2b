package dev.fencepost.bench;

import com.sun.management.OperatingSystemMXBean;
import dev.fencepost.launcher.App;
import dev.fencepost.launcher.GrantSigningKeys;
import dev.fencepost.launcher.LocalIdentity;
import dev.fencepost.launcher.LocalTls;
import dev.fencepost.launcher.etcd.EtcdCluster;
import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.launcher.process.JavaProcess;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
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
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The shared stores and servers of one suite run: one embedded PostgreSQL (lockdb for the lock
 * server, benchdb for the JDBC peers), one etcd member, and two lock-server JVMs (etcd and
 * PostgreSQL backend) started by the launcher from the lock server's runnable jar as child
 * processes, so their CPU can be read per process. Everything binds 127.0.0.1 and dies with this
 * JVM.
 */
public final class Environment implements AutoCloseable {

  private static final Duration SERVER_START = Duration.ofSeconds(150);

  private final Path workDir;
  private final EmbeddedPostgresServer postgres;
  private final PostgresDatabase benchDb;
  private final PostgresDatabase lockDb;
  private final EtcdCluster etcd;
  private final JavaProcess etcdServer;
  private final JavaProcess postgresServer;
  private final long postmasterPid;
  private final HttpClient http =
      HttpClient.newBuilder().sslContext(LocalTls.forThisJvm().sslContext()).build();

  private Environment(
      Path workDir,
      EmbeddedPostgresServer postgres,
      PostgresDatabase benchDb,
      PostgresDatabase lockDb,
      EtcdCluster etcd,
      JavaProcess etcdServer,
      JavaProcess postgresServer,
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

  /**
   * Starts everything; {@code serverJvmArgs} go to both lock-server JVMs (e.g. JFR), with {@code
   * {server}} in them replaced by the server's name, so each JVM writes its own recording (Java
   * 17's JFR does not expand {@code %p} in a file name).
   */
  public static Environment start(Path workDir, List<String> serverJvmArgs) throws Exception {
    return start(workDir, serverJvmArgs, false);
  }

  /**
   * As {@link #start(Path, List)}; with {@code statementStatistics}, PostgreSQL keeps {@code
   * pg_stat_statements} (a diagnostic's choice: it adds a little to every statement's cost).
   */
  public static Environment start(
      Path workDir, List<String> serverJvmArgs, boolean statementStatistics) throws Exception {
    Files.createDirectories(workDir);
    // The bench's lock servers and issuer serve HTTPS with this run's certificate (ADR 0150).
    LocalTls.forThisJvm(workDir.resolve("tls"));
    EmbeddedPostgresServer postgres =
        EmbeddedPostgresServer.builder().statementStatistics(statementStatistics).start();
    EtcdCluster etcd = EtcdCluster.builder().members(1).start();
    // Migrated as its owner; the server connects as the runtime role (ADR 0160).
    PostgresDatabase lockDb =
        postgres
            .createDatabase("bench_lockdb")
            .applyChangelog("db/changelog/lockdb/db.changelog-master.yaml");
    PostgresDatabase benchDb = postgres.createDatabase("bench_peers");
    List<AutoCloseable> started = new ArrayList<>(List.of(benchDb, lockDb, etcd, postgres));
    try {
      // Both JVMs start at once; each is waited for below.
      JavaProcess onEtcd =
          startLockServer(
              "lock-server-etcd",
              workDir,
              serverJvmArgs,
              List.of(
                  "--fencepost.lock.backend=etcd",
                  "--fencepost.lock.etcd.endpoints=" + etcd.endpoints(),
                  "--fencepost.lock.etcd.key-prefix=/bench-server/",
                  "--fencepost.lock.min-ttl=2s"));
      started.add(0, onEtcd);
      JavaProcess onPostgres =
          startLockServer(
              "lock-server-postgres",
              workDir,
              serverJvmArgs,
              List.of(
                  "--spring.datasource.url=" + lockDb.jdbcUrl(),
                  "--spring.datasource.username=" + lockDb.runtime().username(),
                  "--spring.datasource.password=" + lockDb.runtime().password()));
      started.add(0, onPostgres);
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
      awaitHealthy(onEtcd);
      awaitHealthy(onPostgres);
      return new Environment(
          workDir, postgres, benchDb, lockDb, etcd, onEtcd, onPostgres, postmaster);
    } catch (Exception | Error e) {
      closeAll(started);
      throw e;
    }
  }

  /**
   * Waits for a lock server, starting it again (same port) if it exited while starting: on a busy
   * machine its start can outlast its connection timeout towards a store, which says nothing about
   * what is measured. A failure carries the end of its log, which lives in the run's work directory
   * (a test's temporary one is gone by the time anyone reads it).
   */
  private static void awaitHealthy(JavaProcess server) {
    try {
      server.awaitHealthy(SERVER_START, 3);
    } catch (IllegalStateException e) {
      throw new IllegalStateException(e.getMessage() + "; its log ends:\n" + logTail(server), e);
    }
  }

  private static String logTail(JavaProcess server) {
    try {
      List<String> lines = Files.readAllLines(server.log());
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
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

  public JavaProcess etcdServer() {
    return etcdServer;
  }

  public JavaProcess postgresServer() {
    return postgresServer;
  }

  /** Cumulative CPU time in ns per process of this run, by role. */
  public Map<String, Long> cpuNanos() {
    Map<String, Long> cpu = new LinkedHashMap<>();
    cpu.put("harness", harnessCpu());
    cpu.put("etcd", pidCpu(etcd.member(0).pid().orElse(-1L), false));
    cpu.put("postgres", pidCpu(postmasterPid, true));
    cpu.put("server-etcd", pidCpu(serverPid(etcdServer), false));
    cpu.put("server-pg", pidCpu(serverPid(postgresServer), false));
    return cpu;
  }

  /** A lock server's PID while it runs, else -1 (its CPU is then not read). */
  static long serverPid(JavaProcess server) {
    return server.isAlive() ? server.pid() : -1;
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

  /**
   * lockdb's statements by calls and execution time, summed per normalised statement ({@code
   * pg_stat_statements}, which the run must have been started with), with the statement text.
   */
  public Map<String, double[]> lockDbStatements() {
    Map<String, double[]> out = new LinkedHashMap<>();
    try (Connection c = lockDbConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      try (ResultSet rs =
          s.executeQuery(
              "SELECT query, sum(calls), sum(total_exec_time) FROM pg_stat_statements s"
                  + " JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = current_database()"
                  + " GROUP BY query")) {
        while (rs.next()) {
          out.put(rs.getString(1), new double[] {rs.getDouble(2), rs.getDouble(3)});
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("pg_stat_statements unreadable on lockdb", e);
    }
    return out;
  }

  /** A new connection to lockdb as the embedded server's superuser; the caller closes it. */
  public Connection lockDbConnection() throws java.sql.SQLException {
    return DriverManager.getConnection(
        postgres.jdbcUrl(lockDb.name()),
        EmbeddedPostgresServer.USER,
        EmbeddedPostgresServer.PASSWORD);
  }

  /** The query behind {@link #postgresWalSyncs}, for a probe with a server of its own. */
  static final String WAL_SYNCS = "SELECT wal_sync FROM pg_stat_wal";

  /** The query behind {@link #postgresTransactionIds}, for a probe with a server of its own. */
  static final String NEXT_TRANSACTION_ID =
      "SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint";

  /** PostgreSQL's WAL sync count (PostgreSQL 17: pg_stat_wal.wal_sync), server-wide. */
  public long postgresWalSyncs() {
    return serverCounter(WAL_SYNCS);
  }

  /**
   * The next transaction id PostgreSQL will assign, server-wide: its delta counts write
   * transactions (commits) exactly and at once, unlike the statistics views, which a busy backend
   * flushes only every so often. Reading it assigns no id.
   */
  public long postgresTransactionIds() {
    return serverCounter(NEXT_TRANSACTION_ID);
  }

  /** One server-wide number read on a fresh connection; -1 when it cannot be read. */
  private long serverCounter(String query) {
    try (Connection c =
            DriverManager.getConnection(
                postgres.jdbcUrl("postgres"),
                EmbeddedPostgresServer.USER,
                EmbeddedPostgresServer.PASSWORD);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      return rs.next() ? rs.getLong(1) : -1;
    } catch (Exception e) {
      return -1;
    }
  }

  /** The etcd member's version as it reports it, and how many members the cluster has. */
  public String etcdVersion() {
    String version =
        etcd.status(etcd.member(0))
            .map(io.etcd.jetcd.maintenance.StatusResponse::getVersion)
            .orElse("?");
    int members = etcd.members().size();
    return version + ", " + members + (members == 1 ? " member" : " members");
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
    closeAll(all);
  }

  private static void closeAll(List<AutoCloseable> all) {
    for (AutoCloseable c : all) {
      try {
        c.close();
      } catch (Exception ignored) {
        // best effort at the end of a run
      }
    }
  }

  /**
   * Runs {@code jcmd <pid> args...} against a lock server of this run and returns its output (the
   * heap measurements read it).
   */
  public static String jcmd(JavaProcess server, String... args) {
    List<String> command = new ArrayList<>();
    File jcmd = new File(System.getProperty("java.home"), "bin/jcmd");
    command.add(jcmd.exists() ? jcmd.getPath() : "jcmd");
    command.add(Long.toString(server.pid()));
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

  /**
   * One lock-server JVM from the lock server's runnable jar, as operators run it, with a heap for
   * the heartbeat load and no lean-JVM flags: a benchmarked server runs at full compilation.
   */
  private static JavaProcess startLockServer(
      String name, Path workDir, List<String> jvmArgs, List<String> appArgs) {
    return LocalIdentity.withEnvironment(
            JavaProcess.jar(name, App.LOCK_SERVER.jar()).tls(LocalTls.forThisJvm()),
            BenchIdentity.serverEnvironment())
        .jvmArgs(List.of("-Xms256m"))
        .jvmArgs(jvmArgs.stream().map(a -> a.replace("{server}", name)).toList())
        // The heartbeat cell holds 10,000 keepalive streams, about 100 KiB of heap each (ADR 0224):
        // 1 GB, the heap before them, cannot hold them. bench.serverHeap overrides it.
        .heap(System.getProperty("bench.serverHeap", "3g"))
        .httpPort(0)
        .log(workDir.resolve(name + ".log"))
        .args(
            List.of(
                "--spring.main.banner-mode=off",
                "--logging.structured.format.console=",
                "--logging.level.root=WARN",
                // One keepalive stream per session of the heartbeat cell (ADR 0224).
                "--fencepost.lock.max-keepalive-streams=10000",
                // The lock server signs every grant (ADR 0136); the benchmark pays for it too.
                GrantSigningKeys.generate(workDir.resolve("grant-keys")).lockServerArg()))
        .args(appArgs)
        .start();
  }
}
