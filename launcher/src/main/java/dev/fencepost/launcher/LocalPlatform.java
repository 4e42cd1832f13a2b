package dev.fencepost.launcher;

import dev.fencepost.launcher.etcd.EtcdCluster;
import dev.fencepost.launcher.etcd.EtcdCredentials;
import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.security.BearerTokenSource;
import dev.fencepost.security.FencepostRole;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The whole platform on one machine: the identity issuer ({@link LocalIdentity}), an embedded
 * PostgreSQL with lockdb, paydb, proxydb and batchdb (each with an owner and a runtime role, and
 * migrated here as its owner before anything starts; every application connects as the runtime
 * role, ADR 0160), optionally an etcd member, and the lock server, the rail stub and the rail proxy
 * each as its own process from its runnable jar on a loopback port; payout workers are started on
 * demand. The three services start together (their ports are chosen first, so the proxy knows the
 * stub's URL before either runs) and the platform is returned once all three answer their health
 * check.
 *
 * <p>Every hop is TLS ({@link LocalTls}, ADR 0150): the services serve HTTPS only with this run's
 * certificate, every process and this JVM trust the run's CA, and every base URL is {@code
 * https://127.0.0.1:<port>}. There is no switch: nothing the platform starts needs plain HTTP.
 *
 * <p>The database connections are TLS too (ADR 0157): PostgreSQL serves the run's certificate, and
 * every application the platform starts connects with {@code verify-full} against the CA of the
 * server it is given ({@link #storeEnvironment()}). Tools in this JVM that connect directly (the
 * test extensions, the history extraction) keep pgjdbc's default {@code prefer}, which uses TLS
 * when the server offers it, as this one always does.
 *
 * <pre>{@code
 * try (LocalPlatform platform = LocalPlatform.builder(workDir).backend(LockBackend.ETCD).start()) {
 *   JavaProcess worker = platform.startWorker("w1", platform.workerArgs("w1").once());
 *   worker.awaitExit(Duration.ofMinutes(5));
 * }
 * }</pre>
 */
public final class LocalPlatform implements AutoCloseable {

  /** Where the lock server keeps its locks. */
  public enum LockBackend {
    POSTGRES,
    ETCD
  }

  /** The lock server's etcd key prefix, the only keys its etcd role may touch. */
  static final String ETCD_KEY_PREFIX = "/fencepost/";

  private final Path workDir;
  private final EmbeddedPostgresServer postgres;
  private final boolean ownsPostgres;
  private final PostgresDatabase lockdb;
  private final PostgresDatabase paydb;
  private final PostgresDatabase proxydb;
  private final PostgresDatabase batchdb;
  private final EtcdCluster etcd;
  private final GrantSigningKeys grantKeys;
  private final LocalTls tls;
  private final LocalIdentity identity;
  private final JavaProcess lockServer;
  private final JavaProcess railStub;
  private final JavaProcess railProxy;
  private final List<JavaProcess> workers = new CopyOnWriteArrayList<>();
  private final boolean synchronousCommit;
  private final int consolePort;

  private LocalPlatform(Builder b) {
    this.workDir = b.workDir;
    // Before any process: every service serves HTTPS with the run's certificate, and every JVM of
    // the run, this one included, trusts the run's CA (ADR 0150).
    this.tls = LocalTls.forThisJvm(workDir.resolve("tls"));
    this.ownsPostgres = b.postgres == null;
    this.synchronousCommit = b.synchronousCommit;
    if (!ownsPostgres && !b.synchronousCommit) {
      throw new IllegalArgumentException(
          "synchronous_commit off (a benchmark's choice) needs a dedicated PostgreSQL server");
    }
    // The run's own certificate: one CA for every hop of the run, HTTP and database alike.
    this.postgres =
        ownsPostgres
            ? EmbeddedPostgresServer.builder()
                .synchronousCommit(b.synchronousCommit)
                .commitDelay(b.commitDelay)
                .statementStatistics(b.statementStatistics)
                .tls(tls)
                .start()
            : b.postgres;
    b.onReady.accept("PostgreSQL");
    EtcdCluster startedEtcd = null;
    LocalIdentity startedIdentity = null;
    List<JavaProcess> started = new ArrayList<>();
    try {
      // First: every other process trusts its keys, and the callers need its tokens. The operator
      // console's port is chosen now: the issuer sends a signed-in person back only to it.
      this.consolePort = b.consolePort != 0 ? b.consolePort : JavaProcess.freeLoopbackPort();
      startedIdentity =
          LocalIdentity.start(
              workDir, b.startTimeout, List.of(consoleUrl() + OperatorConsoleStack.REDIRECT_PATH));
      this.identity = startedIdentity;
      b.onReady.accept("identity issuer");
      // The migration step, as each database's owner, before any application starts: the
      // applications connect as the runtime roles, which may not migrate (ADR 0160).
      this.lockdb =
          postgres
              .createDatabase("lockdb")
              .applyChangelog("db/changelog/lockdb/db.changelog-master.yaml");
      this.paydb = createPaydb(postgres, "paydb");
      this.proxydb =
          postgres
              .createDatabase("proxydb")
              .applyChangelog("db/changelog/proxydb/db.changelog-master.yaml");
      this.batchdb = createBatchdb(postgres, "batchdb");
      b.onReady.accept("databases");
      List<String> backendArgs;
      Map<String, String> backendEnvironment = Map.of();
      if (b.backend == LockBackend.ETCD) {
        // Secured like every other hop (ADR 0158): TLS with client certificates, and the lock
        // server as an etcd user limited to its key prefix; the password only in its environment.
        startedEtcd = EtcdCluster.builder().members(1).authentication(ETCD_KEY_PREFIX).start();
        b.onReady.accept("etcd");
        EtcdCredentials credentials = startedEtcd.lockServerCredentials();
        List<String> etcdArgs = new ArrayList<>();
        etcdArgs.add("--fencepost.lock.backend=etcd");
        etcdArgs.add("--fencepost.lock.etcd.endpoints=" + startedEtcd.endpoints());
        etcdArgs.add("--fencepost.lock.etcd.key-prefix=" + ETCD_KEY_PREFIX);
        etcdArgs.addAll(credentials.lockServerArgs());
        backendArgs = etcdArgs;
        backendEnvironment = credentials.lockServerEnvironment();
      } else {
        backendArgs = postgresArgs(lockdb);
      }
      this.etcd = startedEtcd;
      // The lock server's grant-signing keys, this platform's own (ADR 0136).
      this.grantKeys = GrantSigningKeys.generate(workDir.resolve("grant-keys"));
      int stubPort = JavaProcess.freeLoopbackPort();
      // The stub trusts the issuer: only the proxy's identity may pay (ADR 0146).
      this.railStub =
          LocalIdentity.withEnvironment(
                  b.service(App.RAIL_STUB, "rail-stub"), identity.serviceEnvironment())
              .jvmArgs(b.jfrArgs("rail-stub"))
              .httpPort(stubPort)
              .args(b.railStubArgs)
              .start();
      started.add(railStub);
      this.lockServer =
          LocalIdentity.withEnvironment(
                  b.service(App.LOCK_SERVER, "lock-server"), identity.serviceEnvironment())
              .jvmArgs(b.jfrArgs("lock-server"))
              .environment(storeEnvironment())
              .environment(backendEnvironment)
              .httpPort(b.lockPort)
              .args(backendArgs)
              .arg(grantKeys.lockServerArg())
              .args(b.lockServerArgs)
              .start();
      started.add(lockServer);
      List<String> proxyArgs = new ArrayList<>(postgresArgs(proxydb));
      proxyArgs.add("--fencepost.rail.base-url=https://127.0.0.1:" + stubPort);
      proxyArgs.add("--fencepost.rail.timeout=" + b.railTimeout);
      proxyArgs.add(proxyGrantKeysArg());
      // The proxy validates its callers' tokens and calls the rail as RAIL_PROXY (ADR 0145).
      this.railProxy =
          LocalIdentity.withEnvironment(
                  b.service(App.RAIL_PROXY, "rail-proxy"),
                  identity.clientEnvironment(FencepostRole.RAIL_PROXY))
              .jvmArgs(b.jfrArgs("rail-proxy"))
              .environment(storeEnvironment())
              .httpPort(0)
              .args(proxyArgs)
              .args(b.railProxyArgs)
              .start();
      started.add(railProxy);
      railStub.awaitHealthy(b.startTimeout);
      b.onReady.accept("rail stub");
      lockServer.awaitHealthy(b.startTimeout, 3);
      b.onReady.accept("lock server");
      railProxy.awaitHealthy(b.startTimeout, 3);
      b.onReady.accept("rail proxy");
    } catch (RuntimeException e) {
      started.forEach(JavaProcess::kill);
      if (startedEtcd != null) {
        startedEtcd.close();
      }
      if (startedIdentity != null) {
        startedIdentity.close();
      }
      if (ownsPostgres) {
        postgres.close();
      }
      throw e;
    }
  }

  /** A platform whose logs go to {@code workDir}. */
  public static Builder builder(Path workDir) {
    return new Builder(workDir);
  }

  /**
   * A new database {@code name} on {@code postgres} with paydb's schema (its changelog applied).
   */
  public static PostgresDatabase createPaydb(EmbeddedPostgresServer postgres, String name) {
    return postgres
        .createDatabase(name)
        .applyChangelog("db/changelog/paydb/db.changelog-master.yaml");
  }

  /**
   * A new database {@code name} on {@code postgres} with batchdb's schema applied before any job
   * starts: two jobs booting together on a fresh batchdb would race to create Liquibase's own
   * tables.
   */
  public static PostgresDatabase createBatchdb(EmbeddedPostgresServer postgres, String name) {
    return postgres
        .createDatabase(name)
        .applyChangelog("db/changelog/batchdb/db.changelog-master.yaml");
  }

  /**
   * {@code --spring.datasource.*} for an application on {@code database}, as its runtime role (ADR
   * 0160): the database must have been migrated ({@link PostgresDatabase#applyChangelog}).
   */
  public static List<String> postgresArgs(PostgresDatabase database) {
    return List.of(
        "--spring.datasource.url=" + database.jdbcUrl(),
        "--spring.datasource.username=" + database.runtime().username(),
        "--spring.datasource.password=" + database.runtime().password());
  }

  public Path workDir() {
    return workDir;
  }

  public EmbeddedPostgresServer postgres() {
    return postgres;
  }

  public PostgresDatabase lockdb() {
    return lockdb;
  }

  public PostgresDatabase paydb() {
    return paydb;
  }

  public PostgresDatabase proxydb() {
    return proxydb;
  }

  public PostgresDatabase batchdb() {
    return batchdb;
  }

  /** The etcd the lock server uses, when its backend is etcd. */
  public Optional<EtcdCluster> etcd() {
    return Optional.ofNullable(etcd);
  }

  public JavaProcess lockServer() {
    return lockServer;
  }

  /**
   * The platform's identities: the issuer, and the environment a process needs to validate tokens
   * or to call as a workload (docs/security.md).
   */
  public LocalIdentity identity() {
    return identity;
  }

  /**
   * Tokens of the workload with {@code role} (its client of the platform's issuer), for calls made
   * from this JVM: {@code platform.tokens(FencepostRole.OPERATOR)} to revoke, for instance.
   */
  public BearerTokenSource tokens(FencepostRole role) {
    return identity.tokens(role);
  }

  public JavaProcess railStub() {
    return railStub;
  }

  /**
   * The port the operator console serves on ({@link OperatorConsoleStack}): chosen before the
   * issuer starts, which registers the console's address as the only one to send people back to.
   */
  public int consolePort() {
    return consolePort;
  }

  /** {@code https://127.0.0.1:<consolePort>}. */
  public String consoleUrl() {
    return "https://127.0.0.1:" + consolePort;
  }

  public JavaProcess railProxy() {
    return railProxy;
  }

  /**
   * The run's TLS: its CA and the certificate every service presents (this JVM already trusts the
   * CA; {@link LocalTls#sslContext()} for a client that wants it explicitly).
   */
  public LocalTls tls() {
    return tls;
  }

  /** The keys this platform's lock server signs grants with (tests sign their own with them). */
  public GrantSigningKeys grantKeys() {
    return grantKeys;
  }

  /**
   * The argument that has a rail proxy verify grants against this platform's lock server's {@code
   * /v1/grant-keys}: for another proxy a test starts next to the platform's own.
   */
  public String proxyGrantKeysArg() {
    return GrantSigningKeys.remoteProxyArg(lockServer.baseUrl());
  }

  public RailStubAdmin railStubAdmin() {
    return new RailStubAdmin(railStub.baseUrl(), identity.tokens(FencepostRole.OPERATOR));
  }

  /** The arguments of a worker on this platform, to be refined by the caller. */
  public PayoutWorkerArgs workerArgs(String workerId) {
    return PayoutWorkerArgs.worker(
        workerId, lockServer.baseUrl(), railProxy.baseUrl(), paydb, batchdb);
  }

  /**
   * Starts a payout worker process (the payout job's jar) with lean JVM flags, as the {@code
   * payout-worker} client of the platform's issuer; the platform stops it on close.
   */
  public JavaProcess startWorker(String workerId, PayoutWorkerArgs args) {
    return startWorker(workerId, args, JavaProcess.LEAN_JVM, "256m");
  }

  /** The same with these JVM flags and heap instead (a long-running, many-threaded worker). */
  public JavaProcess startWorker(
      String workerId, PayoutWorkerArgs args, List<String> jvmArgs, String heap) {
    JavaProcess worker =
        LocalIdentity.withEnvironment(
                JavaProcess.jar(workerId, App.PAYOUT_JOB.jar()).tls(tls),
                identity.clientEnvironment(FencepostRole.PAYOUT_WORKER))
            .jvmArgs(jvmArgs)
            .environment(storeEnvironment())
            .heap(heap)
            .log(workDir.resolve(workerId + ".log"))
            .args(args.toArgs())
            .start();
    workers.add(worker);
    return worker;
  }

  /**
   * What an application of this platform needs in its environment about the stores: TLS to
   * PostgreSQL with {@code verify-full} against the CA of this platform's server ({@code
   * fencepost.db.tls.*}, ADR 0157); and the explicit benchmark choice {@code
   * fencepost.db.allow-asynchronous-commit} when this platform's PostgreSQL runs with asynchronous
   * commits (durable commits need nothing: every application enforces them per session).
   */
  public Map<String, String> storeEnvironment() {
    Map<String, String> environment = new LinkedHashMap<>();
    environment.put("FENCEPOST_DB_TLS_MODE", "verify-full");
    environment.put("FENCEPOST_DB_TLS_ROOTCERT", postgres.caFile().toAbsolutePath().toString());
    if (!synchronousCommit) {
      environment.put("FENCEPOST_DB_ALLOWASYNCHRONOUSCOMMIT", "true");
    }
    return Map.copyOf(environment);
  }

  /** Stops the workers, the services, etcd and (when it started it) PostgreSQL. */
  @Override
  public void close() {
    workers.forEach(JavaProcess::close);
    for (JavaProcess service : List.of(railProxy, lockServer, railStub)) {
      service.close();
    }
    if (etcd != null) {
      etcd.close();
    }
    identity.close();
    if (ownsPostgres) {
      postgres.close();
    }
  }

  /** What to start. */
  public static final class Builder {

    private final Path workDir;
    private LockBackend backend = LockBackend.POSTGRES;
    private EmbeddedPostgresServer postgres;
    private int lockPort;
    private int consolePort;
    private String railTimeout = "1s";
    private boolean synchronousCommit = true;
    private Duration commitDelay = EmbeddedPostgresServer.DEFAULT_COMMIT_DELAY;
    private Duration startTimeout = Duration.ofMinutes(3);
    private Consumer<String> onReady = part -> {};
    private Path jfrDir;
    private boolean productionJvm;
    private boolean statementStatistics;
    private final List<String> lockServerArgs = new ArrayList<>();
    private final List<String> railStubArgs = new ArrayList<>();
    private final List<String> railProxyArgs = new ArrayList<>();

    private Builder(Path workDir) {
      try {
        this.workDir = Files.createDirectories(workDir);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    public Builder backend(LockBackend backend) {
      this.backend = backend;
      return this;
    }

    /** Use this (shared) server instead of starting a dedicated one; it is not closed. */
    public Builder postgres(EmbeddedPostgresServer server) {
      this.postgres = server;
      return this;
    }

    /** The lock server's port; 0 (the default) picks a free one. */
    public Builder lockPort(int port) {
      this.lockPort = port;
      return this;
    }

    /** The operator console's port; 0 (the default) picks a free one. */
    public Builder consolePort(int port) {
      this.consolePort = port;
      return this;
    }

    /** The proxy's timeout towards the rail, e.g. {@code 1s}: past it an outcome is ambiguous. */
    public Builder railTimeout(String timeout) {
      this.railTimeout = timeout;
      return this;
    }

    /**
     * PostgreSQL's {@code synchronous_commit}: on (the default), as production runs it, so that a
     * commit that returned survives a crash of the database server; off only for a benchmark that
     * measures what that costs, on a dedicated server.
     */
    public Builder synchronousCommit(boolean on) {
      this.synchronousCommit = on;
      return this;
    }

    /**
     * PostgreSQL's {@code commit_delay} on the platform's own server: 100 µs (the default), under
     * one flush of a local disk, so that concurrent commits share a WAL flush (ADR 0203, 0206);
     * zero for a benchmark that measures one flush per commit.
     */
    public Builder commitDelay(Duration delay) {
      this.commitDelay = delay;
      return this;
    }

    public Builder startTimeout(Duration timeout) {
      this.startTimeout = timeout;
      return this;
    }

    /**
     * Records a JFR profile of each service into {@code dir} ({@code <service>.jfr}, written when
     * the service stops).
     */
    public Builder jfr(Path dir) {
      this.jfrDir = dir;
      return this;
    }

    /** Told the name of each part as it becomes ready (for a progress display). */
    public Builder onReady(Consumer<String> listener) {
      this.onReady = listener;
      return this;
    }

    /**
     * Runs the lock server, the rail stub and the rail proxy with the JVM's defaults, as the images
     * do ({@link JavaProcess.Builder#productionJvm()}), instead of the lean flags that start a
     * short local run sooner: what a benchmark of the platform at work measures.
     */
    public Builder productionJvm(boolean on) {
      this.productionJvm = on;
      return this;
    }

    /**
     * The platform's own PostgreSQL server keeps {@code pg_stat_statements} (its cost per
     * statement), for a benchmark's per-statement figures.
     */
    public Builder statementStatistics(boolean on) {
      this.statementStatistics = on;
      return this;
    }

    private JavaProcess.Builder service(App app, String name) {
      JavaProcess.Builder process = app.process(name, workDir.resolve(name + ".log"));
      return productionJvm ? process.productionJvm() : process;
    }

    public Builder lockServerArgs(List<String> args) {
      lockServerArgs.addAll(args);
      return this;
    }

    public Builder railStubArgs(List<String> args) {
      railStubArgs.addAll(args);
      return this;
    }

    public Builder railProxyArgs(List<String> args) {
      railProxyArgs.addAll(args);
      return this;
    }

    private List<String> jfrArgs(String service) {
      if (jfrDir == null) {
        return List.of();
      }
      try {
        Files.createDirectories(jfrDir);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      return List.of(
          "-XX:StartFlightRecording=settings=profile,dumponexit=true,filename="
              + jfrDir.resolve(service + ".jfr"));
    }

    /** Starts everything and returns once the issuer and the three services are healthy. */
    public LocalPlatform start() {
      return new LocalPlatform(this);
    }
  }
}
