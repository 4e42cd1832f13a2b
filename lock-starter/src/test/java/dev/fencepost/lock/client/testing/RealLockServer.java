package dev.fencepost.lock.client.testing;

import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.client.LockClient;
import dev.fencepost.lock.client.LockClientMetrics;
import dev.fencepost.lock.client.impl.DefaultLockClient;
import dev.fencepost.lockserver.LockServerApplication;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresServer;
import dev.fencepost.testsupport.postgres.PostgresDatabase;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The real lock server (lock-server-app, PostgreSQL backend) on a fresh lockdb of the JVM's shared
 * embedded PostgreSQL, started once per test JVM and shared by every test class: starting it costs
 * seconds, and tests keep apart by using keys of their own.
 */
public final class RealLockServer {

  private static RealLockServer instance;

  private final ConfigurableApplicationContext context;
  private final String baseUrl;

  private RealLockServer(ConfigurableApplicationContext context) {
    this.context = context;
    this.baseUrl = "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
  }

  /** The shared server, started on first use and stopped when the JVM exits. */
  public static synchronized RealLockServer get() {
    if (instance == null) {
      PostgresDatabase lockdb = EmbeddedPostgresServer.shared().createDatabase("starter_lockdb");
      ConfigurableApplicationContext context =
          new SpringApplicationBuilder(LockServerApplication.class)
              .run(
                  "--server.port=0",
                  "--spring.datasource.url=" + lockdb.jdbcUrl(),
                  "--spring.datasource.username=" + lockdb.username(),
                  "--spring.datasource.password=" + lockdb.password(),
                  "--spring.datasource.hikari.maximum-pool-size=6",
                  "--spring.main.banner-mode=off");
      instance = new RealLockServer(context);
      instance.warmUp();
      Runtime.getRuntime().addShutdownHook(new Thread(context::close, "lock-server-stop"));
    }
    return instance;
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

  public String baseUrl() {
    return baseUrl;
  }

  public int port() {
    return Integer.parseInt(baseUrl.substring(baseUrl.lastIndexOf(':') + 1));
  }

  public AdminApi admin() {
    return new AdminApi(baseUrl);
  }

  /** Whether the lock server's own context created a lock client: it must not (issue 4). */
  public boolean serverContextHasLockClient() {
    return context.getBeanProvider(LockClient.class).getIfAvailable() != null;
  }
}
