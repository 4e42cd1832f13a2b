package dev.fencepost.lock.client.testing;

import dev.fencepost.launcher.etcd.EtcdCluster;
import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.client.LockClient;
import dev.fencepost.lock.client.LockClientMetrics;
import dev.fencepost.lock.client.impl.DefaultLockClient;
import dev.fencepost.lockserver.LockServerApplication;
import dev.fencepost.testsupport.grants.TestGrants;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The real lock server (lock-server-app), on either backend: PostgreSQL (a fresh lockdb on the
 * JVM's shared embedded PostgreSQL) or etcd (a one-member cluster started from Debian's {@code
 * etcd} binary). Each is started once per test JVM, on first use, and shared by every test class:
 * starting it costs seconds, and tests keep apart by using keys of their own.
 */
public final class RealLockServer {

  /** The lock server's backends (FR-09). */
  public enum Backend {
    POSTGRES,
    ETCD
  }

  private static final Map<Backend, RealLockServer> STARTED = new EnumMap<>(Backend.class);

  private final Backend backend;
  private final ConfigurableApplicationContext context;
  private final String baseUrl;

  private RealLockServer(Backend backend, ConfigurableApplicationContext context) {
    this.backend = backend;
    this.context = context;
    this.baseUrl = "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
  }

  /** The lock server on PostgreSQL, the required backend. */
  public static RealLockServer get() {
    return of(Backend.POSTGRES);
  }

  /** The lock server on {@code backend}, started on first use, stopped when the JVM exits. */
  public static synchronized RealLockServer of(Backend backend) {
    RealLockServer server = STARTED.get(backend);
    if (server == null) {
      server = start(backend);
      STARTED.put(backend, server);
    }
    return server;
  }

  private static RealLockServer start(Backend backend) {
    List<String> args = new ArrayList<>();
    args.add("--server.port=0");
    args.add("--management.server.port=0");
    args.add("--server.address=127.0.0.1");
    args.add("--spring.main.banner-mode=off");
    args.add("--logging.structured.format.console=");
    args.add(TestGrants.lockServerArg());
    args.addAll(TestIdentity.ISSUER.resourceServerArgs());
    List<AutoCloseable> resources = new ArrayList<>();
    switch (backend) {
      case POSTGRES -> {
        // Migrated as its owner; the server connects as the runtime role (ADR 0160).
        PostgresDatabase lockdb =
            EmbeddedPostgresServer.shared()
                .createDatabase("starter_lockdb")
                .applyChangelog("db/changelog/lockdb/db.changelog-master.yaml");
        args.add("--spring.datasource.url=" + lockdb.jdbcUrl());
        args.add("--spring.datasource.username=" + lockdb.runtime().username());
        args.add("--spring.datasource.password=" + lockdb.runtime().password());
        args.add("--spring.datasource.hikari.maximum-pool-size=6");
      }
      case ETCD -> {
        EtcdCluster etcd =
            EtcdCluster.builder()
                .members(1)
                .heartbeatInterval(Duration.ofMillis(100))
                .electionTimeout(Duration.ofMillis(1000))
                .start();
        resources.add(etcd);
        args.add("--fencepost.lock.backend=etcd");
        args.add("--fencepost.lock.etcd.endpoints=" + etcd.endpoints());
        args.add("--fencepost.lock.etcd.key-prefix=/starter-tests/");
      }
    }
    ConfigurableApplicationContext context =
        LockServerApplication.application().run(args.toArray(String[]::new));
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  context.close();
                  for (AutoCloseable resource : resources) {
                    try {
                      resource.close();
                    } catch (Exception ignored) {
                      // the JVM is exiting
                    }
                  }
                },
                "lock-server-stop-" + backend));
    RealLockServer server = new RealLockServer(backend, context);
    server.warmUp();
    return server;
  }

  /**
   * A few rounds of session, acquire and release through the real HTTP path, so that the first test
   * does not measure class loading and connection-pool start-up against its short timeouts.
   */
  private void warmUp() {
    DefaultLockClient client =
        new DefaultLockClient(
            TestSettings.against(baseUrl)
                .owner("warm-up")
                .ttl(Duration.ofSeconds(30))
                .timeouts(Duration.ofSeconds(5), Duration.ofSeconds(5))
                .retry(5, Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(60))
                .build(),
            LockClientMetrics.NOOP,
            List.of());
    try (client) {
      for (int i = 0; i < 5; i++) {
        client.acquire(LockKey.of("warm-up:" + i), Duration.ZERO).close();
      }
      admin().inspect("warm-up:0");
    }
  }

  public Backend backend() {
    return backend;
  }

  public String baseUrl() {
    return baseUrl;
  }

  public int port() {
    return Integer.parseInt(baseUrl.substring(baseUrl.lastIndexOf(':') + 1));
  }

  public AdminApi admin() {
    return new AdminApi(baseUrl);
  }

  /** Keepalives the server has served as requests ({@code POST /v1/sessions/{id}/keepalive}). */
  public long keepAliveRequests() {
    // One timer per status and outcome: every answer counts.
    return meters()
        .find("http.server.requests")
        .tag("uri", "/v1/sessions/{id}/keepalive")
        .timers()
        .stream()
        .mapToLong(io.micrometer.core.instrument.Timer::count)
        .sum();
  }

  /** Keepalive streams the server has opened since it started (ADR 0224). */
  public long keepAliveStreamsOpened() {
    var counter = meters().find("fencepost.lock.keepalive.streams.opened").counter();
    return counter == null ? 0 : (long) counter.count();
  }

  /** Keepalive streams open on the server now. */
  public long keepAliveStreamsOpen() {
    var gauge = meters().find("fencepost.lock.keepalive.streams").gauge();
    return gauge == null ? 0 : (long) gauge.value();
  }

  private io.micrometer.core.instrument.MeterRegistry meters() {
    return context.getBean(io.micrometer.core.instrument.MeterRegistry.class);
  }

  /** Whether the lock server's own context created a lock client: it must not. */
  public boolean serverContextHasLockClient() {
    return context.getBeanProvider(LockClient.class).getIfAvailable() != null;
  }

  @Override
  public String toString() {
    return "lock server on " + backend.name().toLowerCase();
  }
}
