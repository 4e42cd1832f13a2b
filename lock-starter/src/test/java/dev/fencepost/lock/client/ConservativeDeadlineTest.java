package dev.fencepost.lock.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.client.testing.AdminApi;
import dev.fencepost.lock.client.testing.Closer;
import dev.fencepost.lock.client.testing.CutOffWorker;
import dev.fencepost.lock.client.testing.OnEveryBackend;
import dev.fencepost.lock.client.testing.RealLockServer;
import dev.fencepost.lock.client.testing.Work;
import dev.fencepost.testsupport.logging.CapturedEvents;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * FR-11, FR-12: when heartbeats stop reaching the server, the client's conservative local deadline
 * fires while the server still considers the lease valid, and work that checks before each side
 * effect stops before its next one. The heartbeat path is blocked by a TCP proxy that stops
 * forwarding bytes (requests hang, as behind a dead network path), against the real lock server on
 * each backend.
 */
@Tag("FR-11")
@Tag("FR-12")
class ConservativeDeadlineTest {

  private static final Logger log = LoggerFactory.getLogger(ConservativeDeadlineTest.class);
  private static final Duration TTL = Duration.ofSeconds(3);

  @RegisterExtension final CapturedEvents events = new CapturedEvents();

  @RegisterExtension final Closer closer = new Closer();

  @OnEveryBackend
  void theLocalDeadlineFiresBeforeTheServersExpiryAndWorkStopsBeforeItsNextSideEffect(
      RealLockServer server) throws Exception {
    AdminApi admin = server.admin();
    CutOffWorker clients =
        closer.register(new CutOffWorker(server, TTL, "worker-behind-proxy", "other-worker"));
    List<String> sideEffects = new CopyOnWriteArrayList<>();
    AtomicReference<Instant> lostAt = new AtomicReference<>();
    AtomicReference<LockLostException.Reason> lostReason = new AtomicReference<>();
    AtomicReference<FencingToken> workerToken = new AtomicReference<>();
    Work.Checkpoint afterFirstSideEffect = new Work.Checkpoint();

    CompletableFuture<Void> work =
        clients.workerRuns(
            lock -> {
              lock.onLost(
                  (l, reason) -> {
                    lostAt.compareAndSet(null, Instant.now());
                    lostReason.set(reason);
                  });
              workerToken.set(lock.token());
              lock.ensureHeld();
              sideEffects.add("claim under " + lock.token());
              afterFirstSideEffect.reachAndWait();
              lock.ensureHeld();
              sideEffects.add("submit under " + lock.token());
              return null;
            });
    assertThat(afterFirstSideEffect.reachedWithin(Duration.ofSeconds(10))).isTrue();

    clients.stall();

    await().atMost(TTL.multipliedBy(2)).until(() -> lostAt.get() != null);
    AdminApi.Inspection serverView = admin.inspect(clients.key());
    assertThat(lostReason.get()).isEqualTo(LockLostException.Reason.EXPIRED);
    assertThat(serverView.held()).as("the server still holds the lease").isTrue();
    assertThat(serverView.token()).isEqualTo(workerToken.get().value());
    if (server.backend() == RealLockServer.Backend.POSTGRES) {
      // PostgreSQL reports expiry to the microsecond; etcd counts whole seconds left, rounded
      // down, so its expiresAt is too coarse to compare with.
      assertThat(lostAt.get()).isBefore(serverView.expiresAt());
    }

    // The server then expires the lease on its own clock and another worker takes over.
    try (HeldLock takeover =
        clients.rival().acquire(LockKey.of(clients.key()), Duration.ofSeconds(10))) {
      Instant takenOverAt = Instant.now();
      assertThat(takeover.token().isNewerThan(workerToken.get())).isTrue();
      log.atInfo()
          .addKeyValue("event", "test.measured")
          .addKeyValue("backend", server.backend())
          .addKeyValue("ttlMillis", TTL.toMillis())
          .addKeyValue(
              "lostBeforeServerExpiryMillis",
              Duration.between(lostAt.get(), serverView.expiresAt()).toMillis())
          .addKeyValue(
              "lostBeforeTakeoverMillis", Duration.between(lostAt.get(), takenOverAt).toMillis())
          .log(
              "{}: local deadline fired {} ms before the server's reported expiry and {} ms before"
                  + " another worker took over (ttl {} ms, margin 30%)",
              server.backend(),
              Duration.between(lostAt.get(), serverView.expiresAt()).toMillis(),
              Duration.between(lostAt.get(), takenOverAt).toMillis(),
              TTL.toMillis());
      afterFirstSideEffect.release();
      ExecutionException failure = catchExecution(work);
      assertThat(failure.getCause())
          .isInstanceOfSatisfying(
              LockLostException.class,
              e -> assertThat(e.reason()).isEqualTo(LockLostException.Reason.EXPIRED));
    }
    assertThat(sideEffects).containsExactly("claim under " + workerToken.get());
    assertThat(events.named("lock.lost"))
        .anySatisfy(
            e ->
                assertThat(e)
                    .containsEntry("reason", "expired")
                    .containsEntry("key", clients.key()));
  }

  private static ExecutionException catchExecution(CompletableFuture<?> future) throws Exception {
    try {
      future.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e;
    }
    throw new AssertionError("the work completed although its lock was lost");
  }
}
