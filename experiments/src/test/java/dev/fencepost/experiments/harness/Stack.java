package dev.fencepost.experiments.harness;

import dev.fencepost.experiments.harness.Guards.ProxyGuards;
import dev.fencepost.history.Extractors;
import dev.fencepost.launcher.App;
import dev.fencepost.launcher.LocalIdentity;
import dev.fencepost.launcher.LocalPlatform;
import dev.fencepost.launcher.RailStubAdmin;
import dev.fencepost.launcher.etcd.EtcdCluster;
import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.security.FencepostRole;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The long-lived parts every scenario of this test JVM shares, started on first use and stopped at
 * JVM exit: one dedicated embedded PostgreSQL (lockdb, proxydb, batchdb; each run gets its own
 * paydb, see {@link ExperimentRun}), the lock server (per {@link LockBackend}), the rail stub, and
 * one rail proxy per combination of its two switches. All are real processes from their runnable
 * jars ({@link App}). Scenarios keep apart by their own accounts, and the harness keeps only their
 * records.
 */
public final class Stack {

  /** How long a shared service may take to start. */
  static final Duration START_TIMEOUT = Duration.ofMinutes(3);

  /**
   * The proxy's timeout towards the rail: short, so a rail timeout costs two seconds, yet long
   * enough that a healthy stub answers within it on a loaded 2-core machine (at 1 s a busy build
   * turned ordinary answers into timeouts, and a payout that must be POSTED became ambiguous); the
   * stub's hang is well longer, so a hang is always a timeout.
   */
  public static final String RAIL_TIMEOUT = "2s";

  /** How long the stub hangs when its fault plan says so. */
  public static final String STUB_HANG = "5s";

  /**
   * How far past its expiry the proxies accept a grant. The experiments freeze holders past their
   * lease on purpose, to show which token guard refuses the thawed holder (and, in the negative
   * controls, what happens without it); the proxy's default of 2 s would refuse the thawed holder's
   * expired grant first (GRANT_EXPIRED) and hide the token guards. The expiry check itself is
   * rail-proxy's own test (ADR 0137).
   */
  static final String GRANT_CLOCK_SKEW = "5m";

  /** Services' start-up banner off: their logs are JSON lines. */
  static final String NO_BANNER = "--spring.main.banner-mode=off";

  private static Stack shared;

  private final Path logs;
  private final EmbeddedPostgresServer postgres;
  private final PostgresDatabase lockdb;
  private final PostgresDatabase proxydb;
  private final PostgresDatabase batchdb;
  private final JavaProcess stub;
  private final RailStubAdmin stubAdmin;
  private final Map<LockBackend, JavaProcess> lockServers = new EnumMap<>(LockBackend.class);
  private final Map<ProxyGuards, JavaProcess> proxies = new HashMap<>();
  private final List<AutoCloseable> closeLast = new ArrayList<>();
  private EtcdCluster etcd;

  /** The shared stack of this test JVM. */
  public static synchronized Stack shared() {
    if (shared == null) {
      shared = new Stack();
      Runtime.getRuntime().addShutdownHook(new Thread(shared::close));
    }
    return shared;
  }

  private Stack() {
    logs = Settings.runsDir().resolve("_stack");
    postgres = EmbeddedPostgresServer.startDedicated();
    lockdb = postgres.createDatabase("exp_lockdb");
    // Migrated as their owners before any application starts (ADR 0160).
    proxydb =
        postgres
            .createDatabase("exp_proxydb")
            .applyChangelog("db/changelog/proxydb/db.changelog-master.yaml");
    // Migrated here, once: two workers booting together on a fresh batchdb race to create
    // Liquibase's own tables ("relation databasechangelog already exists").
    batchdb = LocalPlatform.createBatchdb(postgres, "exp_batchdb");
    // The stub trusts the experiments' issuer: only the rail proxy's identity may pay (ADR 0146).
    stub =
        LocalIdentity.withEnvironment(
                App.RAIL_STUB.process("rail-stub", logs.resolve("rail-stub.log")),
                LockServers.identity().serviceEnvironment())
            .httpPort(0)
            .arg(NO_BANNER)
            .arg("--fencepost.stub.hang=" + STUB_HANG)
            .start()
            .awaitHealthy(START_TIMEOUT);
    stubAdmin =
        new RailStubAdmin(stub.baseUrl(), LockServers.identity().tokens(FencepostRole.OPERATOR));
  }

  public EmbeddedPostgresServer postgres() {
    return postgres;
  }

  public PostgresDatabase lockdb() {
    return lockdb;
  }

  public PostgresDatabase proxydb() {
    return proxydb;
  }

  public PostgresDatabase batchdb() {
    return batchdb;
  }

  public JavaProcess stub() {
    return stub;
  }

  /** The stub's fault plan and its movements (the ground truth of what the rail paid). */
  public RailStubAdmin stubAdmin() {
    return stubAdmin;
  }

  /** The etcd cluster of the {@link LockBackend#ETCD} lock server, once started. */
  public synchronized EtcdCluster etcd() {
    lockServer(LockBackend.ETCD);
    return etcd;
  }

  /** The lock server on {@code backend}, started on first use. */
  public synchronized JavaProcess lockServer(LockBackend backend) {
    return lockServers.computeIfAbsent(
        backend,
        b -> {
          List<String> args;
          if (b == LockBackend.POSTGRES) {
            args = LockServers.on(lockdb);
          } else {
            etcd = EtcdCluster.single();
            closeLast.add(etcd);
            args = LockServers.onEtcd(etcd.endpoints());
          }
          String name = "lock-server-" + b.name().toLowerCase();
          return LockServers.start(name, logs.resolve(name + ".log"), args);
        });
  }

  /** The rail proxy with these switches, started on first use (on the shared proxydb). */
  public synchronized JavaProcess proxy(Guards guards) {
    return proxies.computeIfAbsent(
        guards.proxy(),
        g -> {
          String name =
              "rail-proxy-hw-"
                  + (g.highWater() ? "on" : "off")
                  + "-uq-"
                  + (g.uniqueness() ? "on" : "off");
          List<String> args = new ArrayList<>(LocalPlatform.postgresArgs(proxydb));
          args.add(NO_BANNER);
          args.add("--fencepost.rail.base-url=" + stub.baseUrl());
          args.add("--fencepost.rail.timeout=" + RAIL_TIMEOUT);
          // Every lock server of the experiments signs with the same keys (LockServers).
          args.add(LockServers.grantKeys().staticProxyArg());
          args.add("--fencepost.proxy.grants.clock-skew=" + GRANT_CLOCK_SKEW);
          if (!g.allOn()) {
            args.add("--fencepost.proxy.fencing.experiment=true");
            args.add("--fencepost.proxy.fencing.high-water-enabled=" + g.highWater());
            args.add("--fencepost.proxy.fencing.uniqueness-enabled=" + g.uniqueness());
          }
          // Calls the stub as the rail proxy; accepts the workers' tokens (ADR 0145).
          return LocalIdentity.withEnvironment(
                  App.RAIL_PROXY.process(name, logs.resolve(name + ".log")),
                  LockServers.identity().clientEnvironment(FencepostRole.RAIL_PROXY))
              .httpPort(0)
              .args(args)
              .start()
              .awaitHealthy(START_TIMEOUT, LockServers.START_ATTEMPTS);
        });
  }

  /**
   * Stops the rail proxy with these switches (a game day that ends an instance started with a guard
   * off); the next {@link #proxy(Guards)} with them starts a new one.
   */
  public synchronized void closeProxy(Guards guards) {
    JavaProcess proxy = proxies.remove(guards.proxy());
    if (proxy != null) {
      proxy.close();
    }
  }

  /**
   * Every movement the stub made (history-checker's records), read as an operator: the stub serves
   * its ledger to no one else but the reconciler.
   */
  public List<Object> railMovements() throws IOException, InterruptedException {
    return Extractors.railMovements(
        URI.create(stub.baseUrl()),
        LockServers.identity().tokens(FencepostRole.OPERATOR).currentToken());
  }

  /** Replaces the stub's fault plan (docs/rail.md): {@code overrides} by client reference. */
  public void railFaults(Map<String, String> overridesByClientReference) {
    stubAdmin.faults(overridesByClientReference);
  }

  /** Restores the stub's start-up fault plan (no faults). */
  public void resetRailFaults() {
    stubAdmin.resetFaults();
  }

  private synchronized void close() {
    proxies.values().forEach(JavaProcess::close);
    lockServers.values().forEach(JavaProcess::close);
    stub.close();
    for (AutoCloseable c : closeLast) {
      try {
        c.close();
      } catch (Exception e) {
        // shutting down: nothing more to do with it
      }
    }
    postgres.close();
  }
}
