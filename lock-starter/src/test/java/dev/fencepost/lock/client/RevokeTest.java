package dev.fencepost.lock.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.client.impl.DefaultLockClient;
import dev.fencepost.lock.client.impl.MicrometerLockClientMetrics;
import dev.fencepost.lock.client.testing.OnEveryBackend;
import dev.fencepost.lock.client.testing.RealLockServer;
import dev.fencepost.lock.client.testing.TestSettings;
import dev.fencepost.lock.client.testing.Work;
import dev.fencepost.testsupport.logging.CapturedEvents;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * UC-06 from the client's side: an operator force-revokes a held lock through the admin API, and
 * the holder's client sees lock-lost (REVOKED) by its next heartbeat, while its work is blocked:
 * the heartbeat runs on its own thread.
 */
@Tag("UC-06")
class RevokeTest {

  @RegisterExtension final CapturedEvents events = new CapturedEvents();

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final String key = "payout:revoke-" + UUID.randomUUID();
  private DefaultLockClient holder;

  @AfterEach
  void stop() {
    if (holder != null) {
      holder.close();
    }
  }

  @OnEveryBackend
  void aRevokedHolderSeesLockLostByItsNextHeartbeatWhileItsWorkIsBlocked(RealLockServer server)
      throws Exception {
    holder =
        TestSettings.against(server.baseUrl())
            .owner("stuck-holder")
            .startClient(new MicrometerLockClientMetrics(registry));
    AtomicReference<LockLostException.Reason> reason = new AtomicReference<>();
    AtomicLong heartbeatsAtLoss = new AtomicLong(-1);
    AtomicReference<FencingToken> token = new AtomicReference<>();
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch lost = new CountDownLatch(1);

    CompletableFuture<Void> work =
        Work.inBackground(
            holder,
            key,
            lock -> {
              lock.onLost(
                  (l, r) -> {
                    heartbeatsAtLoss.set(heartbeats());
                    reason.set(r);
                    lost.countDown();
                  });
              token.set(lock.token());
              holding.countDown();
              Work.awaitQuietly(lost); // the work is stuck
              lock.ensureHeld();
              return null;
            });
    assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
    long heartbeatsBeforeRevoke = heartbeats();

    Long revoked = server.admin().revoke(key, "oncall@test", "holder stuck, UC-06 drill");

    assertThat(lost.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(revoked).isEqualTo(token.get().value());
    assertThat(reason.get()).isEqualTo(LockLostException.Reason.REVOKED);
    assertThat(heartbeatsAtLoss.get() - heartbeatsBeforeRevoke)
        .as("heartbeats between the revoke and the lock-lost signal")
        .isLessThanOrEqualTo(1);
    assertThatThrownBy(() -> work.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(LockLostException.class);
    assertThat(events.named("lock.lost"))
        .singleElement()
        .satisfies(e -> assertThat(e).containsEntry("reason", "revoked").containsEntry("key", key));
    assertThat(
            registry.get("fencepost.lock.client.lost").tag("reason", "revoked").counter().count())
        .isEqualTo(1);
    try (HeldLock next = holder.acquire(LockKey.of(key), Duration.ZERO)) {
      assertThat(next.token().isNewerThan(token.get())).isTrue();
    }
  }

  private long heartbeats() {
    return registry.get("fencepost.lock.client.heartbeat").timers().stream()
        .mapToLong(Timer::count)
        .sum();
  }
}
