package dev.fencepost.launcher.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.launcher.DataDirectories;
import dev.fencepost.launcher.LocalTls;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.launcher.process.Signals;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A real PostgreSQL server on loopback, started from the zonky binaries on the class path.
 *
 * <p>{@link #shared()} is one server per JVM, started once and stopped by a shutdown hook (tests
 * take a fresh database on it through test-support's extension). {@link #startDedicated()} is a
 * server of the caller's own, which it may {@link #stop()} and {@link #start()} again on the same
 * port and data directory to simulate a database restart or outage, or {@link #crash()} it (every
 * PostgreSQL process SIGKILLed at once, as a host crash or the OOM killer leaves it) and start it
 * again, which runs PostgreSQL's crash recovery from its WAL. Its {@link #close()} deletes its data
 * directory and the files made for it.
 *
 * <p>Commits are durable: the server runs with {@code synchronous_commit=on} and {@code fsync=on},
 * so a commit that returned survives a crash. The library's own default is {@code
 * synchronous_commit=off}, under which a commit can return before its WAL is flushed and a crash
 * loses it; only {@link #startDedicated(boolean)} with {@code false}, a benchmark's choice, runs
 * so.
 *
 * <p>Commits are flushed in groups ({@link #DEFAULT_COMMIT_DELAY}, ADR 0203): while at least {@link
 * #COMMIT_SIBLINGS} other transactions are open, a commit waits up to {@code commit_delay} for
 * others to reach their commit, and one WAL flush makes all of them durable. A commit still returns
 * only once its WAL is on disk.
 *
 * <p>Every server serves TLS (ADR 0157) with a certificate for {@code 127.0.0.1} and {@code
 * localhost}: by default from a CA of its own ({@link LocalTls#generate}), or the local run's
 * ({@link Builder#tls(LocalTls)}), whose CA file is {@link #caFile()}; a client verifies it with
 * {@code sslmode=verify-full} and {@code sslrootcert} set to that file. Plaintext connections are
 * accepted too, so that tools with pgjdbc's default {@code sslmode=prefer} (which uses TLS when
 * offered) keep working, unless the server is started {@link Builder#tlsOnly()}: its {@code
 * pg_hba.conf} then has only {@code hostssl} lines and a plaintext login is refused.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {

  /**
   * The server's superuser: the DBA of this embedded cluster, for creating databases and roles and
   * for tests and tools that inspect or tamper. Never what an application connects as.
   */
  public static final String USER = "postgres";

  public static final String PASSWORD = "postgres";

  /**
   * PostgreSQL's {@code commit_delay} unless a builder says otherwise: 100 µs, under one WAL flush
   * of a local disk (ADR 0206). Production's 1 ms is for its own, slower disk (ADR 0203); here a
   * delay that long made every commit wait several flushes' time and halved what eight clients that
   * each wait for their commit could do.
   */
  public static final Duration DEFAULT_COMMIT_DELAY = Duration.ofNanos(100_000);

  /** PostgreSQL's {@code commit_siblings}, its own default, stated so that a report can name it. */
  public static final int COMMIT_SIBLINGS = 5;

  /** The largest {@code commit_delay} PostgreSQL accepts: 100,000 microseconds. */
  private static final Duration MAX_COMMIT_DELAY = Duration.ofMillis(100);

  private static final AtomicInteger DATABASE_COUNTER = new AtomicInteger();

  /** How long a stop may take before it counts as failed. */
  private static final Duration STOP_TIMEOUT = Duration.ofMinutes(2);

  private static EmbeddedPostgresServer shared;

  private final Path dataDirectory;
  private final int port;
  private final boolean synchronousCommit;
  private final Duration commitDelay;
  private final boolean statementStatistics;
  private final Tls tls;
  private final Path hbaFile;

  /** The certificate directory the builder generated for this server alone, or null. */
  private final Path ownTlsDirectory;

  private EmbeddedPostgres postgres;
  private boolean closed;

  private EmbeddedPostgresServer(
      Path dataDirectory,
      int port,
      boolean synchronousCommit,
      Duration commitDelay,
      boolean statementStatistics,
      Tls tls,
      Path hbaFile,
      Path ownTlsDirectory) {
    this.dataDirectory = dataDirectory;
    this.port = port;
    this.synchronousCommit = synchronousCommit;
    this.commitDelay = commitDelay;
    this.statementStatistics = statementStatistics;
    this.tls = tls;
    this.hbaFile = hbaFile;
    this.ownTlsDirectory = ownTlsDirectory;
  }

  /**
   * The PEM files a server serves TLS with: its certificate chain, its private key (which
   * PostgreSQL reads only if no one but its owner may, mode 0600) and the CA certificate a client
   * verifies the chain with.
   */
  public record Tls(Path certificate, Path privateKey, Path ca) {

    /** The certificate, key and CA of a local run (ADR 0150): the services' own. */
    public static Tls of(LocalTls tls) {
      return new Tls(tls.certificateFile(), tls.privateKeyFile(), tls.caFile());
    }
  }

  /** The server shared by every user in this JVM; started on first use. */
  public static synchronized EmbeddedPostgresServer shared() {
    if (shared == null) {
      shared = startDedicated();
      EmbeddedPostgresServer server = shared;
      Runtime.getRuntime().addShutdownHook(new Thread(server::close, "embedded-postgres-stop"));
    }
    return shared;
  }

  /** A server owned by the caller, which must close it; commits are durable. */
  public static EmbeddedPostgresServer startDedicated() {
    return startDedicated(true);
  }

  /**
   * A server owned by the caller, which must close it, with {@code synchronous_commit} on or, for a
   * benchmark that measures what durability costs, off (a crash may then lose commits that
   * returned).
   */
  public static EmbeddedPostgresServer startDedicated(boolean synchronousCommit) {
    return builder().synchronousCommit(synchronousCommit).start();
  }

  /** A server of the caller's own, with settings beyond the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** What a dedicated server runs with. */
  public static final class Builder {

    private boolean synchronousCommit = true;
    private Duration commitDelay = DEFAULT_COMMIT_DELAY;
    private boolean statementStatistics;
    private Tls tls;
    private boolean tlsOnly;
    private boolean withoutTls;

    private Builder() {}

    /**
     * {@code synchronous_commit}: on (the default); off only for a benchmark that measures what
     * durability costs (a crash may then lose commits that returned).
     */
    public Builder synchronousCommit(boolean on) {
      this.synchronousCommit = on;
      return this;
    }

    /**
     * {@code commit_delay}: how long a commit waits for others to share its WAL flush while at
     * least {@link #COMMIT_SIBLINGS} other transactions are open ({@link #DEFAULT_COMMIT_DELAY}
     * unless set); zero flushes each commit on its own. Whole microseconds, at most 100 ms.
     *
     * @throws IllegalArgumentException for a negative delay, one over 100 ms, or one that is not a
     *     whole number of microseconds
     */
    public Builder commitDelay(Duration delay) {
      if (delay == null
          || delay.isNegative()
          || delay.compareTo(MAX_COMMIT_DELAY) > 0
          || delay.toNanos() % 1_000 != 0) {
        throw new IllegalArgumentException(
            "commit_delay is 0 to 100 ms in whole microseconds, not " + delay);
      }
      this.commitDelay = delay;
      return this;
    }

    /**
     * Loads {@code pg_stat_statements} (time and calls per normalised statement, every database):
     * for a benchmark that reports what each statement costs. Off by default.
     */
    public Builder statementStatistics(boolean on) {
      this.statementStatistics = on;
      return this;
    }

    /** Serve TLS with these files instead of a certificate from a CA of the server's own. */
    public Builder tls(Tls files) {
      this.tls = files;
      return this;
    }

    /** Serve TLS with the local run's certificate, so that its CA is the only one to trust. */
    public Builder tls(LocalTls run) {
      return tls(Tls.of(run));
    }

    /** Accept only TLS connections ({@code hostssl} in pg_hba.conf): plaintext is refused. */
    public Builder tlsOnly() {
      this.tlsOnly = true;
      return this;
    }

    /**
     * No TLS at all ({@code ssl=off}): only for a test that shows a client refusing a server that
     * cannot encrypt.
     */
    public Builder withoutTls() {
      this.withoutTls = true;
      return this;
    }

    /** Starts the server and returns once it accepts connections; the caller closes it. */
    public EmbeddedPostgresServer start() {
      if (withoutTls && (tls != null || tlsOnly)) {
        throw new IllegalArgumentException("a server without TLS has no certificate to serve");
      }
      try {
        Path ownTlsDirectory =
            withoutTls || tls != null ? null : Files.createTempDirectory("fencepost-pg-tls-");
        Tls files =
            withoutTls ? null : tls != null ? tls : Tls.of(LocalTls.generate(ownTlsDirectory));
        Path hba = null;
        if (tlsOnly) {
          hba = Files.createTempFile("fencepost-pg-hba-", ".conf", OWNER_ONLY);
          Files.writeString(hba, TLS_ONLY_HBA);
        }
        EmbeddedPostgresServer server =
            new EmbeddedPostgresServer(
                Files.createTempDirectory("fencepost-pg-"),
                JavaProcess.freeLoopbackPort(),
                synchronousCommit,
                commitDelay,
                statementStatistics,
                files,
                hba,
                ownTlsDirectory);
        server.start();
        return server;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static final java.nio.file.attribute.FileAttribute<?> OWNER_ONLY =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

  /**
   * The client authentication of a TLS-only server: the library's own rules (trust, on loopback and
   * the local socket), with {@code hostssl} in place of {@code host}, so that a TCP login without
   * TLS matches no line and is refused.
   */
  private static final String TLS_ONLY_HBA =
      """
      # fencepost: TLS-only embedded server (ADR 0157)
      local   all  all                trust
      hostssl all  all  127.0.0.1/32  trust
      hostssl all  all  ::1/128       trust
      """;

  /** Starts (or restarts) the server on its port and data directory, keeping all data. */
  public synchronized void start() {
    if (closed) {
      throw new IllegalStateException(
          "the server on port " + port + " is closed; its data is gone");
    }
    if (postgres != null) {
      return;
    }
    try {
      EmbeddedPostgres.Builder builder =
          EmbeddedPostgres.builder()
              .setDataDirectory(dataDirectory)
              .setCleanDataDirectory(false)
              .setPort(port)
              .setPGStartupWait(Duration.ofSeconds(60))
              // Tests want many short-lived connections from several pools.
              .setServerConfig("max_connections", "300")
              .setServerConfig("fsync", "on")
              .setServerConfig("synchronous_commit", synchronousCommit ? "on" : "off")
              .setServerConfig("commit_delay", Long.toString(commitDelay.toNanos() / 1_000))
              .setServerConfig("commit_siblings", Integer.toString(COMMIT_SIBLINGS))
              .setServerConfig("ssl", tls == null ? "off" : "on");
      if (statementStatistics) {
        builder
            .setServerConfig("shared_preload_libraries", "pg_stat_statements")
            .setServerConfig("pg_stat_statements.track", "all");
      }
      if (tls != null) {
        builder
            .setServerConfig("ssl_cert_file", tls.certificate().toAbsolutePath().toString())
            .setServerConfig("ssl_key_file", tls.privateKey().toAbsolutePath().toString());
      }
      if (hbaFile != null) {
        builder.setServerConfig("hba_file", hbaFile.toAbsolutePath().toString());
      }
      postgres = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start embedded PostgreSQL on port " + port, e);
    }
  }

  /**
   * Stops the server (a fast shutdown), keeping its data for a later {@link #start()}, and returns
   * once its postmaster has exited. The library's stop gives up after 5 s and returns with the
   * postmaster still shutting down (its shutdown checkpoint can take longer on a loaded machine); a
   * start on the same data directory would then find the old postmaster's lock file and fail.
   */
  public synchronized void stop() {
    if (postgres == null) {
      return;
    }
    try {
      postgres.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      postgres = null;
    }
    awaitPostmasterExited(STOP_TIMEOUT);
  }

  /**
   * SIGKILLs the postmaster and every process it started, all at once, by their PIDs, and returns
   * once they are gone: nothing is flushed or checkpointed, as in a host crash. Its data stays for
   * a later {@link #start()}, which recovers from the WAL. Idempotent.
   */
  public synchronized void crash() {
    if (postgres == null) {
      return;
    }
    long postmasterPid = postmasterPid();
    ProcessHandle postmaster =
        ProcessHandle.of(postmasterPid)
            .orElseThrow(() -> new IllegalStateException("postmaster " + postmasterPid + " gone"));
    List<ProcessHandle> everyProcess = new ArrayList<>();
    everyProcess.add(postmaster);
    everyProcess.addAll(postmaster.descendants().toList());
    // One kill(1) for all: no backend outlives the postmaster long enough to write anything. One
    // that exits meanwhile cannot be signalled, and needs not be: the wait below checks them all.
    Signals.trySend("KILL", everyProcess.stream().map(ProcessHandle::pid).toList());
    long deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
    while (everyProcess.stream().anyMatch(ProcessHandle::isAlive)) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("PostgreSQL processes survived SIGKILL: " + everyProcess);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
    EmbeddedPostgres dead = postgres;
    postgres = null;
    try {
      // Releases the library's hold on the data directory; its pg_ctl stop finds no server.
      dead.close();
    } catch (IOException | RuntimeException e) {
      // Expected: there is nothing left to stop.
    }
  }

  /** The postmaster removes its {@code postmaster.pid} as the last step of its shutdown. */
  private void awaitPostmasterExited(Duration atMost) {
    Path pidFile = dataDirectory.resolve("postmaster.pid");
    long deadline = System.nanoTime() + atMost.toNanos();
    while (Files.exists(pidFile)) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "PostgreSQL in " + dataDirectory + " did not stop within " + atMost);
      }
      // The postmaster is not our child (pg_ctl started it); its lock file is what to wait on.
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
    }
  }

  Path dataDirectory() {
    return dataDirectory;
  }

  /**
   * A new connection to the server's {@code postgres} database as its superuser, for what only the
   * superuser may do (roles, databases, extensions, server statistics); the caller closes it.
   */
  public Connection adminConnection() throws SQLException {
    return java.sql.DriverManager.getConnection(jdbcUrl("postgres"), USER, PASSWORD);
  }

  /**
   * The running postmaster's PID, from its {@code postmaster.pid}: the root of the server's process
   * tree (its backends and auxiliary processes are its children).
   */
  public synchronized long postmasterPid() {
    Path pidFile = dataDirectory.resolve("postmaster.pid");
    try {
      return Long.parseLong(Files.readAllLines(pidFile).get(0).strip());
    } catch (IOException e) {
      throw new UncheckedIOException("no postmaster.pid in " + dataDirectory, e);
    }
  }

  public synchronized boolean isRunning() {
    return postgres != null;
  }

  public int port() {
    return port;
  }

  /** The files this server serves TLS with. */
  public Tls tls() {
    if (tls == null) {
      throw new IllegalStateException("this server was started without TLS");
    }
    return tls;
  }

  /**
   * The CA certificate (PEM) that signs this server's certificate: a client's {@code sslrootcert}
   * (pgjdbc) or {@code fencepost.db.tls.root-cert} with {@code verify-full}.
   */
  public Path caFile() {
    return tls().ca();
  }

  /** A JDBC URL for {@code database} on this server. */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  /**
   * Creates an empty database with a unique name starting with {@code prefix}, and its two roles
   * (ADR 0160), as a DBA would: {@code <name>_owner}, which owns the database and is what the
   * migration step connects as, and {@code <name>_app}, the runtime role the applications connect
   * as, which owns nothing. Each gets a password generated here. The owner is also made a member of
   * proxydb's cluster role {@code fencepost_high_water_repair} (created here when absent), to which
   * proxydb's changelog hands its repair function.
   */
  public synchronized PostgresDatabase createDatabase(String prefix) {
    String name =
        (prefix.toLowerCase().replaceAll("[^a-z0-9_]", "_")
                + "_"
                + DATABASE_COUNTER.incrementAndGet())
            + "_"
            + ProcessHandle.current().pid();
    PostgresDatabase.Credentials owner =
        new PostgresDatabase.Credentials(name + "_owner", generatedPassword());
    PostgresDatabase.Credentials runtime =
        new PostgresDatabase.Credentials(name + "_app", generatedPassword());
    try (Connection c = adminConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE ROLE " + owner.username() + " LOGIN PASSWORD '" + owner.password() + "'");
      s.execute(
          "CREATE ROLE " + runtime.username() + " LOGIN PASSWORD '" + runtime.password() + "'");
      s.execute("CREATE DATABASE " + name + " OWNER " + owner.username());
      for (String clusterRole : HIGH_WATER_ROLES) {
        s.execute(
            "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '"
                + clusterRole
                + "') THEN CREATE ROLE "
                + clusterRole
                + " NOLOGIN; END IF; END $$");
      }
      s.execute("GRANT fencepost_high_water_repair TO " + owner.username());
    } catch (SQLException e) {
      throw new IllegalStateException("could not create database " + name, e);
    }
    try (Connection c = java.sql.DriverManager.getConnection(jdbcUrl(name), USER, PASSWORD);
        Statement s = c.createStatement()) {
      // A non-superuser may hand a function to a role only if that role may create in its schema.
      s.execute("GRANT CREATE ON SCHEMA public TO fencepost_high_water_repair");
    } catch (SQLException e) {
      throw new IllegalStateException("could not prepare database " + name, e);
    }
    return new PostgresDatabase(this, name, owner, runtime);
  }

  /**
   * Creates a login role that can read every database of this server and write none (a member of
   * PostgreSQL's {@code pg_read_all_data}, nothing else), whose sessions are read-only by default:
   * what the operator console reads with (ADR 0186). The password is generated here.
   */
  public synchronized PostgresDatabase.Credentials createReadOnlyRole(String prefix) {
    String name =
        prefix.toLowerCase().replaceAll("[^a-z0-9_]", "_")
            + "_"
            + DATABASE_COUNTER.incrementAndGet()
            + "_"
            + ProcessHandle.current().pid();
    PostgresDatabase.Credentials reader =
        new PostgresDatabase.Credentials(name, generatedPassword());
    try (Connection c = adminConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE ROLE " + name + " LOGIN PASSWORD '" + reader.password() + "'");
      s.execute("GRANT pg_read_all_data TO " + name);
      s.execute("ALTER ROLE " + name + " SET default_transaction_read_only = on");
    } catch (SQLException e) {
      throw new IllegalStateException("could not create read-only role " + name, e);
    }
    return reader;
  }

  private static final List<String> HIGH_WATER_ROLES =
      List.of("fencepost_high_water_repair", "fencepost_high_water_operator");

  private static final SecureRandom RANDOM = new SecureRandom();

  private static String generatedPassword() {
    byte[] bytes = new byte[24];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** A small connection pool to {@code database}; the caller closes it. */
  public HikariDataSource pool(String database, int maxSize) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl(database));
    config.setUsername(USER);
    config.setPassword(PASSWORD);
    config.setMaximumPoolSize(maxSize);
    config.setMinimumIdle(0);
    config.setConnectionTimeout(10_000);
    // Fail fast at start-up only if the server is really down; a restart test re-connects later.
    config.setInitializationFailTimeout(-1);
    config.setPoolName("embedded-" + database);
    return new HikariDataSource(config);
  }

  /**
   * Stops the server and deletes its data directory and the files the builder made for it alone
   * (its generated certificates, its {@code pg_hba.conf}); a local run's certificates belong to the
   * run and stay. Without this every server a test suite or a benchmark started left its cluster in
   * the temporary directory, from about 40 MB for a test's to most of a gigabyte for a benchmark's,
   * until the disk filled. A server that fails to stop keeps its files, which a postmaster still
   * writes. Idempotent; the server cannot be started again.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    stop();
    closed = true;
    DataDirectories.delete(dataDirectory);
    if (hbaFile != null) {
      DataDirectories.delete(hbaFile);
    }
    if (ownTlsDirectory != null) {
      DataDirectories.delete(ownTlsDirectory);
    }
  }
}
