package dev.fencepost.lockserver.backend.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lock.SessionInfo;
import dev.fencepost.lock.SessionNotFoundException;
import dev.fencepost.testsupport.etcd.EtcdClusterExtension;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A client that stops heartbeating (killed, partitioned, frozen) loses its locks to etcd's own
 * lease expiry (FR-03, FR-04, ADR 0010): no later than its TTL plus one election timeout after its
 * last keepalive, and not before its TTL. Measured on a 3-member cluster, with the next client
 * already waiting on the key, so the handover is observed the moment it happens (the waiting
 * acquire watches the key).
 */
@Tag("FR-03")
@Tag("FR-04")
class EtcdSessionExpiryTest {

  @RegisterExtension static EtcdClusterExtension etcd = EtcdClusterExtension.threeMembers();

  private static Client client;
  private static EtcdLockBackend backend;

  @BeforeAll
  static void start() {
    client = EtcdFailover.client(etcd.cluster());
    backend = EtcdFailover.backend(client, "/session-expiry/");
  }

  @AfterAll
  static void stop() {
    client.close();
  }

  @Test
  void aSessionThatStopsHeartbeatingLosesItsLocksWithinTtlPlusOneElectionTimeout() {
    // The shortest TTL this cluster grants; the SPI reports what etcd really granted.
    Duration ttl = etcd.cluster().minimumLeaseTtl();
    Duration electionTimeout = etcd.cluster().electionTimeout();
    LockKey key = LockKey.of("payout:expiry-" + UUID.randomUUID());
    SessionInfo silent = backend.createSession("silent-worker", ttl);
    assertThat(silent.ttl()).isEqualTo(ttl);
    LockGrant lost = backend.acquire(key, silent.sessionId(), Duration.ZERO);
    SessionId next = backend.createSession("next-worker", Duration.ofSeconds(30)).sessionId();

    backend.keepAlive(silent.sessionId());
    long lastHeartbeat = System.nanoTime();
    // From here on the silent worker sends nothing. The next worker waits on the key.
    LockGrant taken = backend.acquire(key, next, ttl.plus(electionTimeout).plusSeconds(10));
    Duration handover = Duration.ofNanos(System.nanoTime() - lastHeartbeat);

    System.out.printf(
        Locale.ROOT,
        "%nsession TTL %d s, election timeout %d ms: lock handed over %.3f s after the last"
            + " keepalive%n",
        ttl.toSeconds(),
        electionTimeout.toMillis(),
        handover.toNanos() / 1e9);
    assertThat(taken.token()).isGreaterThan(lost.token());
    assertThat(handover).isLessThanOrEqualTo(ttl.plus(electionTimeout));
    // etcd's view is the generous one: the lock was not taken before the lease could have ended.
    assertThat(handover).isGreaterThan(ttl.minusMillis(500));
    assertThatThrownBy(() -> backend.keepAlive(silent.sessionId()))
        .isInstanceOf(SessionNotFoundException.class);
    assertThatThrownBy(() -> backend.renew(key, silent.sessionId(), lost.token()))
        .isInstanceOf(LockLostException.class)
        .extracting(e -> ((LockLostException) e).reason())
        .isEqualTo(LockLostException.Reason.SESSION_LOST);
  }

  @Test
  void aLeaderElectionAloneNeverExpiresASession() {
    // etcd's new leader restarts every lease's countdown (its "promote"), which is the grace
    // period after an election (ADR 0010): an election alone never expires a session.
    Duration ttl = etcd.cluster().minimumLeaseTtl();
    LockKey key = LockKey.of("payout:grace-" + UUID.randomUUID());
    SessionId holder = backend.createSession("holder", ttl).sessionId();
    LockGrant grant = backend.acquire(key, holder, Duration.ZERO);

    var leader = etcd.cluster().awaitLeader();
    leader.kill();
    try {
      etcd.cluster().awaitNewLeader(leader, Duration.ofSeconds(20));
      assertThat(backend.renew(key, holder, grant.token()).token()).isEqualTo(grant.token());
    } finally {
      leader.restart();
    }
    assertThat(backend.inspect(key).token()).isEqualTo(grant.token());
  }
}
