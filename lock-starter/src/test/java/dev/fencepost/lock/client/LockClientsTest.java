package dev.fencepost.lock.client;

import static dev.fencepost.lock.client.testing.ClientMeters.acquisitions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.lock.client.autoconfigure.LockClientProperties;
import dev.fencepost.lock.client.impl.LockClientSettings;
import dev.fencepost.lock.client.testing.RealLockServer;
import dev.fencepost.lock.client.testing.TestIdentity;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@link LockClients}: the lock client without Spring, for launchers and tools. Its defaults are
 * the starter's, a bad value is refused where it is set and says what is wrong, and what it builds
 * takes and releases locks on the real lock server.
 */
class LockClientsTest {

  private static final URI SERVER = URI.create("http://127.0.0.1:8081");

  @Test
  void everyDefaultIsTheStartersDefaultForTheSameProperty() {
    LockClientProperties starter = new LockClientProperties();
    starter.setBaseUrl(SERVER);

    LockClientSettings built = LockClients.builder(SERVER).owner("tool").settings();

    assertThat(built).isEqualTo(starter.toSettings("tool"));
    assertThat(built.ttl()).isEqualTo(Duration.ofSeconds(15));
    assertThat(built.retry().maxAttempts()).isEqualTo(4);
  }

  @Test
  void withoutAnOwnerTheClientDeclaresItsHostAndProcess() {
    String owner = LockClients.builder(SERVER).settings().owner();

    assertThat(owner).startsWith("fencepost-client@").endsWith(":" + ProcessHandle.current().pid());
  }

  @Test
  void everySettingReachesTheClient() {
    LockClientSettings settings =
        LockClients.builder(SERVER)
            .owner("local-reconciler")
            .sessionTtl(Duration.ofSeconds(30))
            .safetyMargin(0.25)
            .defaultWait(Duration.ofSeconds(5))
            .connectTimeout(Duration.ofSeconds(2))
            .readTimeout(Duration.ofSeconds(8))
            .retry(2, Duration.ofMillis(50), Duration.ofMillis(200), Duration.ofSeconds(2))
            .settings();

    assertThat(settings)
        .isEqualTo(
            new LockClientSettings(
                SERVER,
                "local-reconciler",
                Duration.ofSeconds(30),
                0.25,
                Duration.ofSeconds(5),
                Duration.ofSeconds(2),
                Duration.ofSeconds(8),
                new LockClientSettings.Retry(
                    2, Duration.ofMillis(50), Duration.ofMillis(200), Duration.ofSeconds(2)),
                null));
  }

  @Test
  void aBadValueIsRefusedWhereItIsSetAndSaysWhatIsWrong() {
    LockClients.Builder builder = LockClients.builder(SERVER);

    assertThatThrownBy(() -> LockClients.builder(URI.create("ftp://lock-server:21")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("baseUrl must be an absolute http(s) URL")
        .hasMessageContaining("ftp://lock-server:21");
    assertThatThrownBy(() -> LockClients.builder(URI.create("lock-server:8081")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("baseUrl");
    assertThatThrownBy(() -> builder.owner(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("owner must be 1..200 non-blank characters, got ' '");
    assertThatThrownBy(() -> builder.sessionTtl(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("sessionTtl must be positive, got PT0S");
    assertThatThrownBy(() -> builder.safetyMargin(0.9))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("safetyMargin must be within [0.1, 0.6], got 0.9");
    assertThatThrownBy(() -> builder.defaultWait(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("defaultWait must not be negative, got PT-1S");
    assertThatThrownBy(() -> builder.readTimeout(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("readTimeout");
    assertThatThrownBy(
            () ->
                builder.retry(
                    0, Duration.ofMillis(50), Duration.ofMillis(200), Duration.ofSeconds(2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retry maxAttempts must be 1..20, got 0");
    assertThatThrownBy(
            () ->
                builder.retry(
                    3, Duration.ofSeconds(1), Duration.ofMillis(200), Duration.ofSeconds(2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retry maxDelay (PT0.2S) must not be below baseDelay (PT1S)");
  }

  @Test
  void timeoutsThatDoNotFitTheHeartbeatAreRefusedAtBuild() {
    LockClients.Builder builder =
        LockClients.builder(SERVER)
            .sessionTtl(Duration.ofSeconds(6))
            .readTimeout(Duration.ofSeconds(2));

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be shorter than the heartbeat interval ttl/3 (PT2S)");
  }

  @Test
  void aBuiltClientIsNotRunningUntilStartedAndItsTemplateWaitsItsDefaultWait() {
    try (StartableLockClient client =
        LockClients.builder(SERVER).defaultWait(Duration.ofSeconds(5)).build()) {
      assertThat(client.isRunning()).isFalse();
      assertThat(client.template().defaultWait()).isEqualTo(Duration.ofSeconds(5));
    }
  }

  @Test
  void givenAMeterRegistryTheClientRecordsItsMetricsThere() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();

    try (StartableLockClient client = LockClients.builder(SERVER).meterRegistry(registry).build()) {
      assertThat(registry.find("fencepost.lock.client.grants.active").gauge()).isNotNull();
    }
  }

  @Test
  void aBuiltClientWithoutATokenIsRefusedBySecuredLockServer() {
    RealLockServer server = RealLockServer.get();
    try (StartableLockClient client =
        LockClients.builder(URI.create(server.baseUrl()))
            .owner("anonymous-tool")
            .sessionTtl(Duration.ofSeconds(4))
            .connectTimeout(Duration.ofMillis(500))
            .readTimeout(Duration.ofSeconds(1))
            .retry(1, Duration.ofMillis(10), Duration.ofMillis(10), Duration.ofMillis(100))
            .build()) {
      assertThatThrownBy(
              () -> {
                client.start();
                client.template().execute("payout:anonymous-" + UUID.randomUUID(), lock -> null);
              })
          .hasMessageContaining("UNAUTHENTICATED");
    }
  }

  @Test
  void aBuiltClientTakesAndReleasesLocksOnTheRealLockServer() {
    RealLockServer server = RealLockServer.get();
    String key = "payout:builder-" + UUID.randomUUID();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();

    try (StartableLockClient client =
        LockClients.builder(URI.create(server.baseUrl()))
            .owner("builder-test")
            .bearerTokens(TestIdentity.worker())
            .sessionTtl(Duration.ofSeconds(4))
            .connectTimeout(Duration.ofMillis(500))
            .readTimeout(Duration.ofSeconds(1))
            .meterRegistry(registry)
            .build()) {
      client.start();
      assertThat(client.isRunning()).isTrue();

      FencingToken token =
          client
              .template()
              .execute(
                  key,
                  lock -> {
                    assertThat(server.admin().inspect(key).token()).isEqualTo(lock.token().value());
                    return lock.token();
                  });
      FencingToken next = LockClients.template(client, Duration.ZERO).execute(key, HeldLock::token);

      assertThat(next.isNewerThan(token)).isTrue();
      assertThat(server.admin().inspect(key).held()).isFalse();
      assertThat(acquisitions(registry, "acquired")).isEqualTo(2);
    }
  }
}
