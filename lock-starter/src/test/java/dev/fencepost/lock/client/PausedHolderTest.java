package dev.fencepost.lock.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.client.testing.Closer;
import dev.fencepost.lock.client.testing.CutOffWorker;
import dev.fencepost.lock.client.testing.OnEveryBackend;
import dev.fencepost.lock.client.testing.RealLockServer;
import dev.fencepost.lock.client.testing.Work;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * UC-03 from the client's side: a worker frozen by a stop-the-world pause longer than the TTL. The
 * pause freezes the calling thread (blocked on a latch mid-critical-section) and the rest of the
 * process's traffic (a proxy that stops forwarding: its heartbeats no longer reach the server). The
 * pause lasts until another worker has legitimately taken over, which needs the server's lease to
 * expire, so it is longer than the TTL by construction.
 */
@Tag("UC-03")
@Tag("INV-05")
class PausedHolderTest {

  private static final Duration TTL = Duration.ofSeconds(3);

  @RegisterExtension final Closer closer = new Closer();

  @OnEveryBackend
  void afterAPauseLongerThanTheTtlEnsureHeldFailsAndThePausedTokenIsBelowTheNewHolders(
      RealLockServer server) throws Exception {
    CutOffWorker clients =
        closer.register(new CutOffWorker(server, TTL, "w1-paused", "w2-successor"));
    Fence guard = new Fence();
    AtomicReference<FencingToken> pausedToken = new AtomicReference<>();
    AtomicReference<LockLostException> seenAfterThaw = new AtomicReference<>();
    AtomicBoolean staleWriteAccepted = new AtomicBoolean();
    AtomicLong pauseNanos = new AtomicLong();
    Work.Checkpoint pause = new Work.Checkpoint();

    CompletableFuture<Void> w1 =
        clients.workerRuns(
            lock -> {
              pausedToken.set(lock.token());
              lock.ensureHeld();
              assertThat(guard.write(lock.token())).isTrue(); // the claim
              lock.ensureHeld(); // passes: the pause comes after the check
              long pausedAt = System.nanoTime();
              clients.stall();
              pause.reachAndWait(); // the pause itself
              pauseNanos.set(System.nanoTime() - pausedAt);
              // Thawed, with no knowledge that time passed. The write was already past its
              // check: only the token can stop it now.
              staleWriteAccepted.set(guard.write(lock.token()));
              try {
                lock.ensureHeld();
              } catch (LockLostException e) {
                seenAfterThaw.set(e);
                throw e;
              }
              return null;
            });
    assertThat(pause.reachedWithin(Duration.ofSeconds(10))).isTrue();

    long frozenAt = System.nanoTime();
    FencingToken successorToken;
    try (HeldLock takeover =
        clients.rival().acquire(LockKey.of(clients.key()), Duration.ofSeconds(10))) {
      successorToken = takeover.token();
      assertThat(guard.write(successorToken)).isTrue();
    }
    // The takeover already proves the lease outlived; also make the pause exceed the TTL itself.
    await().atMost(TTL.multipliedBy(2)).until(() -> System.nanoTime() - frozenAt > TTL.toNanos());
    clients.resume();
    pause.release();

    try {
      w1.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException expected) {
      assertThat(expected.getCause()).isInstanceOf(LockLostException.class);
    }
    assertThat(Duration.ofNanos(pauseNanos.get())).isGreaterThan(TTL);
    assertThat(seenAfterThaw.get()).as("ensureHeld after the pause").isNotNull();
    assertThat(pausedToken.get().compareTo(successorToken)).isNegative();
    assertThat(staleWriteAccepted).as("the guard refused the stale token (INV-05)").isFalse();
    assertThat(guard.fence()).isEqualTo(successorToken.value());
  }

  /**
   * A guard per ADR 0036: accept iff {@code token >= fence}, then {@code fence = token},
   * atomically.
   */
  static final class Fence {
    private final AtomicLong fence = new AtomicLong();

    boolean write(FencingToken token) {
      long current;
      do {
        current = fence.get();
        if (token.isStaleAgainst(current)) {
          return false;
        }
      } while (!fence.compareAndSet(current, token.value()));
      return true;
    }

    long fence() {
      return fence.get();
    }
  }
}
