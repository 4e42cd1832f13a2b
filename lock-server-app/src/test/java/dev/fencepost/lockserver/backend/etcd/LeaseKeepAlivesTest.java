package dev.fencepost.lockserver.backend.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.launcher.etcd.EtcdMember;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lock.SessionNotFoundException;
import dev.fencepost.lockserver.backend.BackendUnavailableException;
import dev.fencepost.testsupport.etcd.EtcdClusterExtension;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Lease keepalives on the lock server's few keepalive streams (ADR 0228), counted by etcd itself:
 * one request each on streams that stay open, each answer matched to its own lease, a lease that is
 * gone answered as such without harm to its stream, and a stream etcd stops answering replaced
 * within the call timeout.
 */
@Tag("FR-04")
class LeaseKeepAlivesTest {

  @RegisterExtension static EtcdClusterExtension etcd = EtcdClusterExtension.singleMember();

  private static final String PREFIX = "/keepalive-test/";
  private static final String METHOD = "LeaseKeepAlive";
  private static Client client;

  @BeforeAll
  static void start() {
    client = EtcdFailover.client(etcd.cluster());
  }

  @AfterAll
  static void stop() {
    client.close();
  }

  private static EtcdMember member() {
    return etcd.cluster().member(0);
  }

  @Test
  void everyKeepaliveIsOneRequestOnStreamsThatStayOpen() throws Exception {
    EtcdLockBackend backend = EtcdFailover.backend(client, PREFIX);
    SessionId session = backend.createSession("alice", Duration.ofSeconds(30)).sessionId();
    long streams = EtcdServed.streamsStarted(member(), METHOD);
    long requests = EtcdServed.messagesReceived(member(), METHOD);

    for (int i = 0; i < 40; i++) {
      backend.keepAlive(session);
    }

    assertThat(EtcdServed.streamsStarted(member(), METHOD) - streams)
        .isEqualTo(LeaseKeepAlives.STREAMS);
    assertThat(EtcdServed.messagesReceived(member(), METHOD) - requests).isEqualTo(40);
    assertThat(backend.keepAlives().streamsOpened()).isEqualTo(LeaseKeepAlives.STREAMS);
  }

  /** Why ADR 0228 exists: if jetcd stops doing this, its own keepAliveOnce may serve again. */
  @Test
  void jetcdsOwnKeepAliveOnceOpensAStreamPerKeepaliveAndSendsTheRequestTwice() throws Exception {
    long lease = client.getLeaseClient().grant(30).get(10, TimeUnit.SECONDS).getID();
    long streams = EtcdServed.streamsStarted(member(), METHOD);
    long requests = EtcdServed.messagesReceived(member(), METHOD);

    for (int i = 0; i < 5; i++) {
      client.getLeaseClient().keepAliveOnce(lease).get(10, TimeUnit.SECONDS);
    }

    assertThat(EtcdServed.streamsStarted(member(), METHOD) - streams).isEqualTo(5);
    // The second request of a call goes out as its stream ends, after the answer came back.
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(EtcdServed.messagesReceived(member(), METHOD) - requests).isEqualTo(10));
  }

  @Test
  void concurrentKeepalivesOfLeasesWithDifferentTtlsEachGetTheirOwnLeasesTtl() throws Exception {
    EtcdLockBackend backend = EtcdFailover.backend(client, PREFIX);
    List<SessionId> sessions = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      sessions.add(backend.createSession("worker-" + i, Duration.ofSeconds(20 + i)).sessionId());
    }
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      List<Future<List<Long>>> answers = new ArrayList<>();
      for (SessionId session : sessions) {
        Callable<List<Long>> keepalives =
            () -> {
              List<Long> ttls = new ArrayList<>();
              for (int i = 0; i < 100; i++) {
                ttls.add(backend.keepAlive(session).ttl().toSeconds());
              }
              return ttls;
            };
        answers.add(threads.submit(keepalives));
      }
      for (int i = 0; i < sessions.size(); i++) {
        assertThat(answers.get(i).get(60, TimeUnit.SECONDS))
            .as("the TTLs answered to %s's keepalives", sessions.get(i))
            .hasSize(100)
            .containsOnly(20L + i);
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(backend.keepAlives().streamsOpened()).isEqualTo(LeaseKeepAlives.STREAMS);
  }

  @Test
  void aKeepaliveOfALeaseThatIsGoneIsSessionNotFoundAndTheStreamServesTheNext() throws Exception {
    EtcdLockBackend backend = EtcdFailover.backend(client, PREFIX);
    SessionId gone = backend.createSession("alice", Duration.ofSeconds(30)).sessionId();
    SessionId alive = backend.createSession("bob", Duration.ofSeconds(30)).sessionId();
    for (int i = 0; i < LeaseKeepAlives.STREAMS; i++) {
      backend.keepAlive(gone);
    }
    client.getLeaseClient().revoke(Long.parseLong(gone.value(), 16)).get(10, TimeUnit.SECONDS);

    assertThatThrownBy(() -> backend.keepAlive(gone)).isInstanceOf(SessionNotFoundException.class);

    for (int i = 0; i < LeaseKeepAlives.STREAMS; i++) {
      assertThat(backend.keepAlive(alive).ttl()).isEqualTo(Duration.ofSeconds(30));
    }
    assertThat(backend.keepAlives().streamsOpened()).isEqualTo(LeaseKeepAlives.STREAMS);
  }

  @Test
  void aStreamEtcdStopsAnsweringIsReplacedWithinTheCallTimeoutAndFailsClosed() throws Exception {
    EtcdLockBackend backend = EtcdFailover.backend(client, PREFIX);
    SessionId session = backend.createSession("alice", Duration.ofSeconds(60)).sessionId();
    for (int i = 0; i < LeaseKeepAlives.STREAMS; i++) {
      backend.keepAlive(session);
    }

    member().pause();
    long start = System.nanoTime();
    try {
      assertThatThrownBy(() -> backend.keepAlive(session))
          .isInstanceOf(BackendUnavailableException.class);
      // A generous bound: the point is that the keepalive ends and fails closed, not its speed.
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isLessThan(EtcdFailover.OPERATION_TIMEOUT.plusSeconds(5));
      // Each try waited one call timeout and ended its stream, not the operation's whole time on
      // one stream that would never answer.
      assertThat(backend.keepAlives().streamsEnded()).isGreaterThanOrEqualTo(3);
    } finally {
      member().resume();
    }

    assertThat(backend.keepAlive(session).ttl()).isEqualTo(Duration.ofSeconds(60));
  }
}
