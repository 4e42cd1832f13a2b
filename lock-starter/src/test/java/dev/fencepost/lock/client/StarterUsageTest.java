package dev.fencepost.lock.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.client.autoconfigure.LockClientAutoConfiguration;
import dev.fencepost.lock.client.autoconfigure.LockClientHealthAutoConfiguration;
import dev.fencepost.lock.client.autoconfigure.LockClientMetricsAutoConfiguration;
import dev.fencepost.lock.client.testing.RealLockServer;
import dev.fencepost.lock.client.testing.TestIdentity;
import dev.fencepost.security.BearerTokenSource;
import dev.fencepost.testsupport.logging.CapturedEvents;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The lock starter's definition of done, as an application sees it: add the starter, set the lock
 * server URL, run fenced work in three lines; against the real lock server on PostgreSQL.
 */
class StarterUsageTest {

  @RegisterExtension final CapturedEvents events = new CapturedEvents();

  private final RealLockServer server = RealLockServer.get();
  private final List<LockLostException.Reason> heardByListenerBean = new CopyOnWriteArrayList<>();

  private final ApplicationContextRunner application =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  LockClientMetricsAutoConfiguration.class,
                  LockClientAutoConfiguration.class,
                  LockClientHealthAutoConfiguration.class))
          .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
          .withBean(BearerTokenSource.class, TestIdentity::worker)
          .withBean(LockLostListener.class, () -> (lock, reason) -> heardByListenerBean.add(reason))
          .withPropertyValues(
              "fencepost.lock.client.base-url=" + server.baseUrl(),
              "fencepost.lock.client.ttl=4s",
              "fencepost.lock.client.read-timeout=1s",
              "fencepost.lock.client.connect-timeout=500ms");

  @Test
  void anApplicationRunsFencedWorkInThreeLines() {
    String accountId = "acc-" + UUID.randomUUID();
    application.run(
        context -> {
          LockTemplate lockTemplate = context.getBean(LockTemplate.class);

          FencingToken token =
              lockTemplate.execute("payout:" + accountId, lock -> claim(accountId, lock.token()));

          assertThat(token.value()).isPositive();
          assertThat(server.admin().inspect("payout:" + accountId).held()).isFalse();
          Health health = context.getBean(HealthIndicator.class).health();
          assertThat(health.getStatus()).isEqualTo(Status.UP);
          assertThat(health.getDetails())
              .containsEntry("state", "CONNECTED")
              .containsEntry("ttl", "PT4S")
              .containsKeys("remaining", "sessionId");
        });
    // Closing the application closes its session on the lock server.
    assertThat(events.named("lock.session.closed")).isNotEmpty();
  }

  @Test
  void lockLostListenerBeansHearEveryLossOfTheApplicationsLocks() {
    String key = "payout:acc-" + UUID.randomUUID();
    application.run(
        context -> {
          LockTemplate lockTemplate = context.getBean(LockTemplate.class);
          lockTemplate.execute(
              key,
              lock -> {
                server.admin().revoke(key, "oncall@test", "listener bean test");
                await().atMost(Duration.ofSeconds(10)).until(() -> !lock.isHeld());
                return null;
              });

          assertThat(heardByListenerBean).containsExactly(LockLostException.Reason.REVOKED);
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          assertThat(
                  registry
                      .get("fencepost.lock.client.lost")
                      .tag("reason", "revoked")
                      .counter()
                      .count())
              .isEqualTo(1);
        });
    Map<String, Object> lost = events.named("lock.lost").get(0);
    assertThat(lost).containsEntry("key", key).containsEntry("reason", "revoked");
  }

  /** Stands in for a fenced mutation: the token is a required argument. */
  private static FencingToken claim(String accountId, FencingToken token) {
    return token;
  }
}
