package dev.fencepost.lock.client;

import static dev.fencepost.lock.client.testing.ClientMeters.acquisitions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.LockNotAcquiredException;
import dev.fencepost.lock.client.impl.DefaultLockClient;
import dev.fencepost.lock.client.impl.DefaultLockTemplate;
import dev.fencepost.lock.client.impl.MicrometerLockClientMetrics;
import dev.fencepost.lock.client.testing.RealLockServer;
import dev.fencepost.lock.client.testing.TestSettings;
import dev.fencepost.testsupport.logging.CapturedEvents;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link LockTemplate} against the real lock server on PostgreSQL: the token reaches the work as a
 * parameter, the lock is released after the work, contention is a normal outcome, and two threads
 * of one client never share a grant.
 */
@Tag("UC-02")
class LockTemplateTest {

  @RegisterExtension final CapturedEvents events = new CapturedEvents();

  private final RealLockServer server = RealLockServer.get();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private DefaultLockClient alice;
  private DefaultLockClient bob;
  private LockTemplate aliceTemplate;
  private LockTemplate bobTemplate;
  private final String key = "payout:tmpl-" + UUID.randomUUID();

  @BeforeEach
  void startClients() {
    alice =
        TestSettings.against(server.baseUrl())
            .owner("alice")
            .startClient(new MicrometerLockClientMetrics(registry));
    bob = TestSettings.against(server.baseUrl()).owner("bob").startClient();
    aliceTemplate = new DefaultLockTemplate(alice, Duration.ZERO);
    bobTemplate = new DefaultLockTemplate(bob, Duration.ZERO);
  }

  @AfterEach
  void stopClients() {
    alice.close();
    bob.close();
  }

  @Test
  void workReceivesTheFencingTokenAndTheLockIsReleasedAfterIt() {
    AtomicReference<FencingToken> seen = new AtomicReference<>();
    String result =
        aliceTemplate.execute(
            key,
            lock -> {
              lock.ensureHeld();
              seen.set(lock.token());
              assertThat(server.admin().inspect(key).token()).isEqualTo(lock.token().value());
              assertThat(alice.activeGrants()).isEqualTo(1);
              return "claimed with " + lock.token();
            });

    assertThat(result).isEqualTo("claimed with " + seen.get());
    assertThat(server.admin().inspect(key).held()).isFalse();
    assertThat(alice.activeGrants()).isZero();
    FencingToken next = bobTemplate.execute(key, HeldLock::token);
    assertThat(next.isNewerThan(seen.get())).isTrue();

    assertThat(events.named("lock.acquired"))
        .anySatisfy(e -> assertThat(e).containsEntry("key", key).containsKey("token"));
    assertThat(events.named("lock.released"))
        .anySatisfy(e -> assertThat(e).containsEntry("key", key));
    assertThat(acquisitions(registry, "acquired")).isEqualTo(1);
  }

  @Test
  void contentionIsAnEmptyResultAndTheWorkDoesNotRun() {
    AtomicInteger runs = new AtomicInteger();
    try (HeldLock held = bob.acquire(LockKey.of(key), Duration.ZERO)) {
      assertThat(held.isHeld()).isTrue();

      Optional<String> result =
          aliceTemplate.tryExecute(
              key,
              lock -> {
                runs.incrementAndGet();
                return "ran";
              });

      assertThat(result).isEmpty();
      assertThatThrownBy(() -> aliceTemplate.execute(key, lock -> runs.incrementAndGet()))
          .isInstanceOf(LockNotAcquiredException.class);
    }
    assertThat(runs).hasValue(0);
    assertThat(acquisitions(registry, "held")).isEqualTo(2);
    // Contention is a normal outcome (UC-02): nothing at WARN or ERROR.
    assertThat(events.all()).noneSatisfy(e -> assertThat(e.get("level")).isIn("WARN", "ERROR"));
  }

  @Test
  void theServerSideWaitHandsTheLockOverWhenTheHolderReleases() throws Exception {
    HeldLock held = bob.acquire(LockKey.of(key), Duration.ZERO);
    CompletableFuture<FencingToken> waiting =
        CompletableFuture.supplyAsync(
            () -> aliceTemplate.execute(LockKey.of(key), Duration.ofSeconds(10), HeldLock::token));
    await().atMost(Duration.ofSeconds(10)).until(() -> server.admin().inspect(key).waiters() > 0);

    held.close();

    assertThat(waiting.get(10, TimeUnit.SECONDS).isNewerThan(held.token())).isTrue();
  }

  @Test
  void twoThreadsOfOneClientNeverHoldTheSameKeyTogether() throws Exception {
    // One session per client, and the server answers that session's repeated acquire with the same
    // token: without local exclusion both threads would "hold" the key under one token.
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(1);
    CompletableFuture<FencingToken> first =
        CompletableFuture.supplyAsync(
            () ->
                aliceTemplate.execute(
                    key,
                    lock -> {
                      holding.countDown();
                      awaitLatch(done);
                      return lock.token();
                    }));
    assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();

    assertThat(aliceTemplate.tryExecute(key, HeldLock::token)).isEmpty();

    done.countDown();
    FencingToken firstToken = first.get(10, TimeUnit.SECONDS);
    FencingToken secondToken =
        aliceTemplate.execute(LockKey.of(key), Duration.ofSeconds(5), HeldLock::token);
    assertThat(secondToken.isNewerThan(firstToken)).isTrue();
  }

  @Test
  void aGrantGoneAtReleaseIsReportedAsLockLostNotThrownOverTheResult() {
    String result =
        aliceTemplate.execute(
            key,
            lock -> {
              server.admin().revoke(key, "oncall@test", "release-path test");
              return "work result";
            });

    assertThat(result).isEqualTo("work result");
    assertThat(events.named("lock.lost"))
        .singleElement()
        .satisfies(e -> assertThat(e.get("reason")).isIn("revoked", "not_held"));
    assertThat(alice.activeGrants()).isZero();
  }

  @Test
  void lockLostThrownByTheWorkPropagatesAndTheLockIsStillReleased() {
    assertThatThrownBy(
            () ->
                aliceTemplate.execute(
                    key,
                    lock -> {
                      throw new LockLostException(
                          lock.key(), LockLostException.Reason.EXPIRED, "simulated");
                    }))
        .isInstanceOf(LockLostException.class);

    assertThat(server.admin().inspect(key).held()).isFalse();
  }

  @Test
  void theActiveGrantsGaugeFollowsHeldLocks() {
    aliceTemplate.execute(
        key,
        lock -> {
          assertThat(registry.get("fencepost.lock.client.grants.active").gauge().value())
              .isEqualTo(1.0);
          return null;
        });
    assertThat(registry.get("fencepost.lock.client.grants.active").gauge().value()).isZero();
  }

  @Test
  void theLockServersOwnContextHasNoLockClient() {
    assertThat(server.serverContextHasLockClient()).isFalse();
  }

  private static void awaitLatch(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("latch not released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
