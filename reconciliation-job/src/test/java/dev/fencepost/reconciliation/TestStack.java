package dev.fencepost.reconciliation;

import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.lockserver.LockServerApplication;
import dev.fencepost.railproxy.RailProxyApplication;
import dev.fencepost.railstub.RailStubApplication;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The real parts, started once per test JVM and shared: embedded PostgreSQL 17 (lockdb, proxydb,
 * batchdb and the application's paydb), the rail stub, the rail proxy (guards on), a second proxy
 * on the same proxydb with per-payout uniqueness off (the FR-29 negative control, ADR 0043), and
 * the lock server on PostgreSQL. Each app runs with {@code spring.config.name} of its own, so this
 * module's application.yaml does not leak into it.
 */
final class TestStack {

  private static TestStack instance;

  final EmbeddedPostgresServer postgres;
  final PostgresDatabase batchdb;
  final PostgresDatabase appPaydb;
  final ConfigurableApplicationContext stub;
  final ConfigurableApplicationContext proxy;
  final ConfigurableApplicationContext unguardedProxy;
  final ConfigurableApplicationContext lockServer;

  static synchronized TestStack get() {
    if (instance == null) {
      instance = new TestStack();
    }
    return instance;
  }

  private TestStack() {
    postgres = EmbeddedPostgresServer.shared();
    batchdb = postgres.createDatabase("recon_batchdb");
    appPaydb = postgres.createDatabase("recon_app_paydb");
    PostgresDatabase proxydb = postgres.createDatabase("recon_proxydb");
    PostgresDatabase lockdb = postgres.createDatabase("recon_lockdb");
    stub =
        run(
            RailStubApplication.class,
            "--spring.config.name=rail-stub-under-test",
            "--spring.application.name=rail-stub",
            "--spring.autoconfigure.exclude="
                + "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration,"
                + "org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration",
            "--fencepost.stub.seed=2026",
            "--fencepost.stub.hang=1500ms",
            "--fencepost.stub.latency.fixed=0ms",
            "--fencepost.stub.lookup-lag=0s");
    proxy = startProxy(proxydb, false);
    unguardedProxy = startProxy(proxydb, true);
    lockServer =
        run(
            LockServerApplication.class,
            "--spring.config.name=lock-server-under-test",
            "--spring.application.name=lock-server",
            "--spring.datasource.url=" + lockdb.jdbcUrl(),
            "--spring.datasource.username=" + lockdb.username(),
            "--spring.datasource.password=" + lockdb.password(),
            "--spring.datasource.hikari.maximum-pool-size=4",
            "--fencepost.lock.backend=postgres");
  }

  private ConfigurableApplicationContext startProxy(PostgresDatabase proxydb, boolean unguarded) {
    List<String> args = new ArrayList<>();
    args.add("--spring.config.name=rail-proxy-under-test");
    args.add("--spring.application.name=" + (unguarded ? "rail-proxy-unguarded" : "rail-proxy"));
    args.add("--spring.datasource.url=" + proxydb.jdbcUrl());
    args.add("--spring.datasource.username=" + proxydb.username());
    args.add("--spring.datasource.password=" + proxydb.password());
    args.add("--spring.datasource.hikari.maximum-pool-size=4");
    args.add(
        "--spring.liquibase.change-log=classpath:db/changelog/proxydb/db.changelog-master.yaml");
    args.add("--fencepost.rail.base-url=" + url(stub));
    // Below the stub's hang, so TIMEOUT_*_SETTLE faults are timeouts here (UC-05).
    args.add("--fencepost.rail.timeout=500ms");
    args.add("--fencepost.rail.lookup-timeout=2s");
    if (unguarded) {
      args.add("--fencepost.proxy.fencing.uniqueness-enabled=false");
      args.add("--fencepost.proxy.fencing.experiment=true");
    }
    return run(RailProxyApplication.class, args.toArray(String[]::new));
  }

  private static ConfigurableApplicationContext run(Class<?> app, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--server.port=0");
    all.add("--server.address=127.0.0.1");
    all.add("--spring.main.banner-mode=off");
    all.add("--logging.structured.format.console=");
    all.add("--management.endpoints.web.exposure.include=health");
    return new SpringApplicationBuilder(app).run(all.toArray(String[]::new));
  }

  static String url(ConfigurableApplicationContext context) {
    return "http://127.0.0.1:" + context.getEnvironment().getRequiredProperty("local.server.port");
  }

  String stubUrl() {
    return url(stub);
  }

  String proxyUrl() {
    return url(proxy);
  }

  String unguardedProxyUrl() {
    return url(unguardedProxy);
  }

  String lockServerUrl() {
    return url(lockServer);
  }
}
