package dev.fencepost.reconciliation;

import dev.fencepost.launcher.App;
import dev.fencepost.launcher.GrantSigningKeys;
import dev.fencepost.launcher.LocalIdentity;
import dev.fencepost.launcher.LocalPlatform;
import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.security.BearerTokenSource;
import dev.fencepost.security.FencepostRole;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The real parts, started once per test JVM and shared: the launcher's local platform on this JVM's
 * shared embedded PostgreSQL 17 (lockdb, proxydb, and the paydb and batchdb the application under
 * test is given), with the rail stub, the rail proxy (guards on) and the lock server on PostgreSQL
 * each its own process from its runnable jar; and a second proxy process on the same proxydb with
 * per-payout uniqueness off (the FR-29 negative control, ADR 0043). Each service reads its own
 * configuration, as operators run it.
 */
final class TestStack {

  private static final Duration SERVICE_START = Duration.ofMinutes(3);

  /** Below the stub's hang, so TIMEOUT_*_SETTLE faults are timeouts at the proxy (UC-05). */
  private static final String RAIL_TIMEOUT = "500ms";

  private static final List<String> PROXY_ARGS =
      List.of(
          "--spring.datasource.hikari.maximum-pool-size=4", "--fencepost.rail.lookup-timeout=2s");

  private static TestStack instance;

  final LocalPlatform platform;
  final EmbeddedPostgresServer postgres;
  final PostgresDatabase batchdb;
  final PostgresDatabase appPaydb;
  final JavaProcess unguardedProxy;

  static synchronized TestStack get() {
    if (instance == null) {
      instance = new TestStack();
      Runtime.getRuntime().addShutdownHook(new Thread(instance::close));
    }
    return instance;
  }

  private TestStack() {
    Path workDir = Path.of("target", "stack-" + ProcessHandle.current().pid());
    platform =
        LocalPlatform.builder(workDir)
            .postgres(EmbeddedPostgresServer.shared())
            .startTimeout(SERVICE_START)
            .railTimeout(RAIL_TIMEOUT)
            .railStubArgs(
                List.of(
                    "--fencepost.stub.seed=2026",
                    "--fencepost.stub.hang=1500ms",
                    "--fencepost.stub.latency.fixed=0ms",
                    "--fencepost.stub.lookup-lag=0s"))
            .railProxyArgs(PROXY_ARGS)
            .lockServerArgs(List.of("--spring.datasource.hikari.maximum-pool-size=4"))
            .start();
    postgres = platform.postgres();
    batchdb = platform.batchdb();
    appPaydb = platform.paydb();
    try {
      unguardedProxy =
          LocalIdentity.withEnvironment(
                  App.RAIL_PROXY.process(
                      "rail-proxy-unguarded", workDir.resolve("rail-proxy-unguarded.log")),
                  platform.identity().clientEnvironment(FencepostRole.RAIL_PROXY))
              .environment(platform.storeEnvironment())
              .httpPort(0)
              .args(LocalPlatform.postgresArgs(platform.proxydb()))
              .arg("--spring.application.name=rail-proxy-unguarded")
              .arg("--fencepost.rail.base-url=" + platform.railStub().baseUrl())
              .arg("--fencepost.rail.timeout=" + RAIL_TIMEOUT)
              .arg(platform.proxyGrantKeysArg())
              .args(PROXY_ARGS)
              .arg("--fencepost.proxy.fencing.experiment=true")
              .arg("--fencepost.proxy.fencing.uniqueness-enabled=false")
              .start()
              .awaitHealthy(SERVICE_START, 3);
    } catch (RuntimeException e) {
      platform.close();
      throw e;
    }
  }

  String stubUrl() {
    return platform.railStub().baseUrl();
  }

  String proxyUrl() {
    return platform.railProxy().baseUrl();
  }

  String unguardedProxyUrl() {
    return unguardedProxy.baseUrl();
  }

  /** The platform's grant-signing keys, to sign what a test submits without a lock. */
  GrantSigningKeys grantKeys() {
    return platform.grantKeys();
  }

  String lockServerUrl() {
    return platform.lockServer().baseUrl();
  }

  /** Tokens of the platform's workload with {@code role}, for calls the tests make themselves. */
  BearerTokenSource tokens(FencepostRole role) {
    return platform.tokens(role);
  }

  /** The reconciler's client registration with the platform's issuer, as properties. */
  Map<String, String> reconcilerIdentity() {
    return platform.identity().clientProperties(FencepostRole.RECONCILER);
  }

  private void close() {
    unguardedProxy.close();
    platform.close();
  }
}
