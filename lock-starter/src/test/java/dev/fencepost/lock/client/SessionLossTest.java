package dev.fencepost.lock.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.client.impl.DefaultLockClient;
import dev.fencepost.lock.client.testing.RealLockServer;
import dev.fencepost.lock.client.testing.TestSettings;
import dev.fencepost.testsupport.logging.CapturedEvents;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * FR-04: when the server no longer has the client's session, every lock of that session is lost
 * (SESSION_LOST) and a new session serves later acquires.
 */
@Tag("FR-04")
class SessionLossTest {

  @RegisterExtension final CapturedEvents events = new CapturedEvents();

  private final RealLockServer server = RealLockServer.get();
  private final String prefix = "payout:session-" + UUID.randomUUID();
  private DefaultLockClient client;

  @BeforeEach
  void start() {
    client = TestSettings.against(server.baseUrl()).owner("session-loser").startClient();
  }

  @AfterEach
  void stop() {
    client.close();
  }

  @Test
  void aLostSessionLosesEveryLockOfItAndANewSessionServesLaterAcquires() {
    HeldLock first = client.acquire(LockKey.of(prefix + ":a"), Duration.ZERO);
    HeldLock second = client.acquire(LockKey.of(prefix + ":b"), Duration.ZERO);
    String oldSession = first.grant().sessionId().value();
    AtomicReference<LockLostException.Reason> reason = new AtomicReference<>();
    first.onLost((lock, r) -> reason.set(r));

    server.admin().deleteSession(oldSession);

    await().atMost(Duration.ofSeconds(5)).until(() -> !first.isHeld() && !second.isHeld());
    assertThat(reason.get()).isEqualTo(LockLostException.Reason.SESSION_LOST);
    assertThat(second.lostReason()).contains(LockLostException.Reason.SESSION_LOST);
    // A lock can learn of the loss first, from its own renew right after the acquire (the renew
    // answers that the session is gone); the session-level event follows when the heartbeat's
    // keepalive finds the session missing. Either order is correct; the event must come once.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(events.named("lock.session.lost"))
                    .singleElement()
                    .satisfies(e -> assertThat(e).containsEntry("sessionId", oldSession)));
    // The holders close their lost locks (LockTemplate does so after the work); only then is the
    // key free for another thread of this client.
    first.close();
    second.close();
    try (HeldLock again = client.acquire(LockKey.of(prefix + ":a"), Duration.ZERO)) {
      assertThat(again.grant().sessionId().value()).isNotEqualTo(oldSession);
      assertThat(again.token().isNewerThan(first.token())).isTrue();
    }
    assertThat(events.named("lock.session.created"))
        .anySatisfy(e -> assertThat(e).containsEntry("recreated", true));
  }

  @Test
  void anAcquireThatFindsItsSessionGoneRecreatesItAndSucceeds() {
    client.acquire(LockKey.of(prefix + ":warm"), Duration.ZERO).close();
    String oldSession = client.sessionStatus().sessionId();

    server.admin().deleteSession(oldSession);

    try (HeldLock lock = client.acquire(LockKey.of(prefix + ":c"), Duration.ZERO)) {
      assertThat(lock.isHeld()).isTrue();
      assertThat(lock.grant().sessionId().value()).isNotEqualTo(oldSession);
    }
  }
}
