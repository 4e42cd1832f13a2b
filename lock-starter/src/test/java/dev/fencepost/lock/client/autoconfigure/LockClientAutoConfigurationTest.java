package dev.fencepost.lock.client.autoconfigure;

import static dev.fencepost.lock.client.testing.ClientMeters.acquisitions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockServiceUnavailableException;
import dev.fencepost.lock.client.HeldLock;
import dev.fencepost.lock.client.LockClient;
import dev.fencepost.lock.client.LockClientMetrics;
import dev.fencepost.lock.client.LockTemplate;
import dev.fencepost.lock.client.SessionStatus;
import dev.fencepost.lock.client.impl.DefaultLockClient;
import dev.fencepost.lock.client.impl.DefaultLockTemplate;
import dev.fencepost.lock.client.impl.LockClientHealthIndicator;
import dev.fencepost.lock.client.impl.MicrometerLockClientMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The auto-configuration: inert unless asked for, backs off for the application's own beans, and
 * splits core, metrics and health so each backs off on its own condition. These contexts point at a
 * closed port: the application must still start, and acquire must fail closed (UC-08).
 */
@Tag("FR-27")
@Tag("NFR-09")
class LockClientAutoConfigurationTest {

  private static String closedPortUrl;

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(starterAutoConfigurations()))
          .withPropertyValues(
              "fencepost.lock.client.retry.max-attempts=2",
              "fencepost.lock.client.retry.base-delay=10ms",
              "fencepost.lock.client.retry.max-delay=20ms");

  @BeforeAll
  static void findClosedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPortUrl = "http://127.0.0.1:" + socket.getLocalPort();
    }
  }

  @Test
  void theStarterRegistersItsThreeAutoConfigurations() {
    assertThat(starterAutoConfigurations())
        .containsExactlyInAnyOrder(
            LockClientAutoConfiguration.class,
            LockClientMetricsAutoConfiguration.class,
            LockClientHealthAutoConfiguration.class);
  }

  @Test
  void nothingIsConfiguredWithoutABaseUrl() {
    runner.run(
        context ->
            assertThat(context)
                .hasNotFailed()
                .doesNotHaveBean(LockClient.class)
                .doesNotHaveBean(LockTemplate.class)
                .doesNotHaveBean(LockClientMetrics.class)
                .doesNotHaveBean(HealthIndicator.class));
  }

  @Test
  void nothingIsConfiguredWhenDisabled() {
    runner
        .withPropertyValues(
            "fencepost.lock.client.base-url=" + closedPortUrl,
            "fencepost.lock.client.enabled=false")
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .doesNotHaveBean(LockClient.class)
                    .doesNotHaveBean(LockTemplate.class)
                    .doesNotHaveBean(HealthIndicator.class));
  }

  @Test
  void aBaseUrlConfiguresClientTemplateNoOpMetricsAndHealth() {
    runner
        .withPropertyValues("fencepost.lock.client.base-url=" + closedPortUrl)
        .run(
            context -> {
              assertThat(context).hasSingleBean(DefaultLockClient.class);
              assertThat(context).hasSingleBean(DefaultLockTemplate.class);
              assertThat(context.getBean(LockClientMetrics.class)).isSameAs(LockClientMetrics.NOOP);
              assertThat(context).hasSingleBean(LockClientHealthIndicator.class);
              assertThat(context.getBean(DefaultLockClient.class).settings().owner())
                  .contains("@")
                  .endsWith(":" + ProcessHandle.current().pid());
            });
  }

  @Test
  void propertiesReachTheClient() {
    runner
        .withPropertyValues(
            "fencepost.lock.client.base-url=" + closedPortUrl,
            "fencepost.lock.client.owner=payout-executor-7",
            "fencepost.lock.client.ttl=9s",
            "fencepost.lock.client.safety-margin=0.4",
            "fencepost.lock.client.wait=750ms")
        .run(
            context -> {
              var settings = context.getBean(DefaultLockClient.class).settings();
              assertThat(settings.owner()).isEqualTo("payout-executor-7");
              assertThat(settings.ttl()).isEqualTo(Duration.ofSeconds(9));
              assertThat(settings.heartbeatInterval()).isEqualTo(Duration.ofSeconds(3));
              assertThat(settings.margin()).isEqualTo(Duration.ofMillis(3600));
              assertThat(context.getBean(LockTemplate.class).defaultWait())
                  .isEqualTo(Duration.ofMillis(750));
              assertThat(settings.keepAliveStream()).as("the keepalive stream's default").isTrue();
            });
  }

  @Test
  void theKeepaliveStreamCanBeSwitchedOff() {
    runner
        .withPropertyValues(
            "fencepost.lock.client.base-url=" + closedPortUrl,
            "fencepost.lock.client.keep-alive-stream=false")
        .run(
            context ->
                assertThat(context.getBean(DefaultLockClient.class).settings().keepAliveStream())
                    .isFalse());
  }

  @Test
  void aSettingThatWouldDefeatTheLocalDeadlineFailsTheStartUp() {
    runner
        .withPropertyValues(
            "fencepost.lock.client.base-url=" + closedPortUrl,
            "fencepost.lock.client.safety-margin=0.05")
        .run(
            context ->
                assertThat(context).getFailure().rootCause().hasMessageContaining("safety-margin"));
  }

  @Test
  void theApplicationStartsWithTheLockServerDownAndEveryAcquireFailsClosed() {
    runner
        .withPropertyValues("fencepost.lock.client.base-url=" + closedPortUrl)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              AtomicInteger runs = new AtomicInteger();
              LockTemplate template = context.getBean(LockTemplate.class);

              assertThatThrownBy(
                      () -> template.execute("payout:acc-1", lock -> runs.incrementAndGet()))
                  .isInstanceOf(LockServiceUnavailableException.class);
              assertThatThrownBy(
                      () -> template.tryExecute("payout:acc-1", lock -> runs.incrementAndGet()))
                  .isInstanceOf(LockServiceUnavailableException.class);

              assertThat(runs).hasValue(0);
              assertThat(context.getBean(LockClientHealthIndicator.class).health().getStatus())
                  .isEqualTo(Status.DOWN);
            });
  }

  @Test
  void theApplicationsOwnBeansWin() {
    LockClient own = new FixedLockClient();
    runner
        .withPropertyValues("fencepost.lock.client.base-url=" + closedPortUrl)
        .withBean("ownClient", LockClient.class, () -> own)
        .withBean(
            "ownTemplate", LockTemplate.class, () -> new DefaultLockTemplate(own, Duration.ZERO))
        .withBean("ownMetrics", LockClientMetrics.class, () -> LockClientMetrics.NOOP)
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(DefaultLockClient.class);
              assertThat(context).getBean(LockClient.class).isSameAs(own);
              assertThat(context).getBeanNames(LockTemplate.class).containsExactly("ownTemplate");
              assertThat(context)
                  .getBeanNames(LockClientMetrics.class)
                  .containsExactly("ownMetrics");
              assertThat(context.getBean(LockClientHealthIndicator.class).health().getStatus())
                  .isEqualTo(Status.UP);
            });
  }

  @Test
  void aMeterRegistrySwitchesOnMicrometerMetricsWithBoundedTags() {
    runner
        .withConfiguration(
            AutoConfigurations.of(
                MetricsAutoConfiguration.class,
                CompositeMeterRegistryAutoConfiguration.class,
                SimpleMetricsExportAutoConfiguration.class))
        .withPropertyValues("fencepost.lock.client.base-url=" + closedPortUrl)
        .run(
            context -> {
              assertThat(context).hasSingleBean(MicrometerLockClientMetrics.class);
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              assertThatThrownBy(
                      () ->
                          context
                              .getBean(LockClient.class)
                              .acquire(LockKey.of("payout:acc-9"), Duration.ZERO))
                  .isInstanceOf(LockServiceUnavailableException.class);

              assertThat(acquisitions(registry, "unavailable")).isEqualTo(1);
              assertThat(registry.get("fencepost.lock.client.grants.active").gauge().value())
                  .isZero();
              // NFR-09: every tag key is a bounded dimension, never an identifier.
              assertThat(
                      registry.getMeters().stream()
                          .filter(m -> m.getId().getName().startsWith("fencepost.lock.client"))
                          .flatMap(m -> m.getId().getTags().stream())
                          .map(t -> t.getKey())
                          .distinct())
                  .containsOnly("outcome", "reason");
            });
  }

  @Test
  void withoutMicrometerTheMetricsAreANoOp() {
    runner
        .withClassLoader(new FilteredClassLoader("io.micrometer.core"))
        .withPropertyValues("fencepost.lock.client.base-url=" + closedPortUrl)
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(LockClient.class);
              assertThat(context).doesNotHaveBean(MicrometerLockClientMetrics.class);
              assertThat(context.getBean(LockClientMetrics.class)).isSameAs(LockClientMetrics.NOOP);
            });
  }

  @Test
  void withoutAMeterRegistryBeanTheMetricsAreANoOp() {
    runner
        .withPropertyValues("fencepost.lock.client.base-url=" + closedPortUrl)
        .run(
            context ->
                assertThat(context.getBean(LockClientMetrics.class))
                    .isSameAs(LockClientMetrics.NOOP));
  }

  @Test
  void withoutSpringBootHealthThereIsNoHealthIndicator() {
    runner
        .withClassLoader(new FilteredClassLoader(HealthIndicator.class))
        .withPropertyValues("fencepost.lock.client.base-url=" + closedPortUrl)
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(LockClient.class)
                    .doesNotHaveBean(LockClientHealthIndicator.class));
  }

  @Test
  void theHealthIndicatorCanBeSwitchedOff() {
    runner
        .withPropertyValues(
            "fencepost.lock.client.base-url=" + closedPortUrl,
            "management.health.fencepostlock.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(LockClientHealthIndicator.class));
  }

  @Test
  void noPropertyCanMakeTheClientFailOpen() throws IOException {
    // FR-27: failing closed is not configurable. The metadata lists every property there is.
    List<String> names = new ArrayList<>();
    for (URL url :
        Collections.list(
            getClass()
                .getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
      try (InputStream in = url.openStream()) {
        JsonNode metadata = JsonMapper.builder().build().readTree(in);
        for (JsonNode property : metadata.path("properties")) {
          String name = property.get("name").asString();
          if (name.startsWith("fencepost.lock.client.")) {
            names.add(name);
          }
        }
      }
    }

    assertThat(names).contains("fencepost.lock.client.base-url", "fencepost.lock.client.ttl");
    assertThat(names)
        .allSatisfy(
            name ->
                assertThat(name.toLowerCase(Locale.ROOT).replaceAll("[^a-z]", ""))
                    .doesNotContain("failopen")
                    .doesNotContain("skiplock")
                    .doesNotContain("bypass")
                    .doesNotContain("withoutlock"));
  }

  private static Class<?>[] starterAutoConfigurations() {
    return ImportCandidates.load(
            AutoConfiguration.class, LockClientAutoConfigurationTest.class.getClassLoader())
        .getCandidates()
        .stream()
        .filter(name -> name.startsWith("dev.fencepost.lock.client."))
        .map(LockClientAutoConfigurationTest::load)
        .toArray(Class<?>[]::new);
  }

  private static Class<?> load(String name) {
    try {
      return Class.forName(name);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
  }

  /** An application's own client: always connected, never acquires. */
  private static final class FixedLockClient implements LockClient {
    @Override
    public HeldLock acquire(LockKey key, Duration wait) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Optional<HeldLock> tryAcquire(LockKey key, Duration wait) {
      return Optional.empty();
    }

    @Override
    public SessionStatus sessionStatus() {
      return new SessionStatus(
          SessionStatus.State.CONNECTED,
          "s",
          Duration.ofSeconds(15),
          Duration.ofSeconds(9),
          0,
          0,
          null);
    }

    @Override
    public int activeGrants() {
      return 0;
    }
  }
}
