package dev.fencepost.lock.client;

import static com.github.tomakehurst.wiremock.client.WireMock.exactly;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.moreThanOrExactly;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static dev.fencepost.lock.client.testing.LockServerStubs.grant;
import static dev.fencepost.lock.client.testing.LockServerStubs.json;
import static dev.fencepost.lock.client.testing.LockServerStubs.problem;
import static dev.fencepost.lock.client.testing.LockServerStubs.problemAnswer;
import static dev.fencepost.lock.client.testing.LockServerStubs.session;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.client.impl.DefaultLockClient;
import dev.fencepost.lock.client.testing.LockServerStubs;
import dev.fencepost.lock.client.testing.OnEveryBackend;
import dev.fencepost.lock.client.testing.RealLockServer;
import dev.fencepost.lock.client.testing.TestIdentity;
import dev.fencepost.lock.client.testing.TestSettings;
import dev.fencepost.security.BearerTokenSource;
import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.logging.CapturedEvents;
import dev.fencepost.testsupport.security.TestIssuer;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The heartbeat over the session's keepalive stream (ADR 0224): a client sends its keepalives as
 * frames on one WebSocket, not as requests; a stream the server closes is opened again with a fresh
 * token without a heartbeat missed; a server without the stream keeps the client alive by requests
 * and is asked again only after a backoff; with the stream turned off every keepalive is a request.
 */
class KeepAliveStreamTest {

  @RegisterExtension final CapturedEvents events = new CapturedEvents();

  @RegisterExtension static WireMockExtension stub = LockServerStubs.server();

  private final String key = "payout:stream-" + UUID.randomUUID();

  @OnEveryBackend
  void heartbeatsGoOverTheSessionsStreamAndNotAsRequests(RealLockServer server) {
    try (DefaultLockClient client =
        TestSettings.against(server.baseUrl())
            .owner("streamer")
            .ttl(Duration.ofMillis(1500))
            .timeouts(Duration.ofMillis(400), Duration.ofMillis(450))
            .startClient()) {
      HeldLock held = client.acquire(LockKey.of(key), Duration.ZERO);
      await().atMost(Duration.ofSeconds(10)).until(() -> server.keepAliveStreamsOpen() >= 1);
      long requests = server.keepAliveRequests();
      long opened = server.keepAliveStreamsOpened();

      // Six heartbeats and more: the TTL is 1.5 s, a heartbeat every 0.5 s. The lock would be lost
      // after 1.05 s without one confirmed.
      await()
          .pollDelay(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(() -> assertThat(held.isHeld()).isTrue());

      assertThat(held.lostReason()).isEmpty();
      assertThat(server.keepAliveRequests()).as("keepalives sent as requests").isEqualTo(requests);
      assertThat(server.keepAliveStreamsOpened()).as("streams opened again").isEqualTo(opened);
      held.close();
    }
  }

  @Test
  void withTheStreamOffEveryKeepaliveIsARequest() {
    RealLockServer server = RealLockServer.get();
    long opened = server.keepAliveStreamsOpened();
    try (DefaultLockClient client =
        TestSettings.against(server.baseUrl())
            .owner("no-streamer")
            .ttl(Duration.ofMillis(1500))
            .timeouts(Duration.ofMillis(400), Duration.ofMillis(450))
            .keepAliveStream(false)
            .startClient()) {
      HeldLock held = client.acquire(LockKey.of(key), Duration.ZERO);
      long requests = server.keepAliveRequests();

      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> server.keepAliveRequests() >= requests + 4);

      assertThat(held.isHeld()).isTrue();
      assertThat(server.keepAliveStreamsOpened()).isEqualTo(opened);
      held.close();
    }
  }

  @Test
  void aStreamClosedWhenItsTokenExpiresIsOpenedAgainWithoutAHeartbeatMissed() {
    RealLockServer server = RealLockServer.get();
    // Every token lives 2 s, so the server closes each stream 2 s after it opened it.
    BearerTokenSource shortLived =
        () ->
            TestIdentity.ISSUER.mint(
                "starter-short-lived",
                TestIssuer.AUDIENCE,
                Instant.now(),
                Duration.ofSeconds(2),
                FencepostRole.PAYOUT_WORKER);
    try (DefaultLockClient client =
        TestSettings.against(server.baseUrl())
            .owner("short-lived")
            .ttl(Duration.ofMillis(1500))
            .timeouts(Duration.ofMillis(400), Duration.ofMillis(450))
            .tokens(shortLived)
            .startClient()) {
      HeldLock held = client.acquire(LockKey.of(key), Duration.ZERO);
      long opened = server.keepAliveStreamsOpened();

      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> server.keepAliveStreamsOpened() >= opened + 3);

      assertThat(held.isHeld()).as("no heartbeat missed across three streams").isTrue();
      assertThat(held.lostReason()).isEmpty();
      assertThat(events.named("lock.heartbeat.failed")).isEmpty();
      held.close();
    }
  }

  @Test
  void aServerWithoutTheStreamKeepsTheClientAliveByRequestsAndIsAskedAgainOnlyAfterABackoff() {
    String sessionId = "s-" + UUID.randomUUID();
    stub.stubFor(post(urlEqualTo("/v1/sessions")).willReturn(json(201, session(sessionId, 1500))));
    stub.stubFor(
        get(urlPathMatching("/v1/sessions/.*/keepalive-stream"))
            .willReturn(problemAnswer(404, problem(404, "NOT_FOUND", "no such endpoint"))));
    stub.stubFor(
        post(urlEqualTo("/v1/sessions/" + sessionId + "/keepalive"))
            .willReturn(json(200, session(sessionId, 1500))));
    stub.stubFor(
        post(urlPathMatching("/v1/locks/.*/acquire"))
            .willReturn(json(200, grant(key, sessionId, 7, 1500))));
    stub.stubFor(
        post(urlPathMatching("/v1/locks/.*/renew"))
            .willReturn(json(200, grant(key, sessionId, 7, 1500))));
    try (DefaultLockClient client =
        TestSettings.against(stub.baseUrl())
            .owner("old-server")
            .ttl(Duration.ofMillis(1500))
            .timeouts(Duration.ofMillis(400), Duration.ofMillis(450))
            .startClient()) {
      HeldLock held = client.acquire(LockKey.of(key), Duration.ZERO);

      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  stub.verify(
                      moreThanOrExactly(6),
                      postRequestedFor(urlEqualTo("/v1/sessions/" + sessionId + "/keepalive"))));

      assertThat(held.isHeld()).isTrue();
      // The first heartbeat asked; the next ask waits 15 s.
      stub.verify(exactly(1), getRequestedFor(urlPathMatching("/v1/sessions/.*/keepalive-stream")));
      assertThat(events.named("lock.keepalive_stream.unavailable"))
          .singleElement()
          .satisfies(e -> assertThat(String.valueOf(e.get("retryInMillis"))).isEqualTo("15000"));
      held.close();
    }
  }

  @Test
  void aHeartbeatDoesNotWaitForAStreamWhoseOpeningCannotFinish() throws InterruptedException {
    // The JDK's WebSocket client finishes an opening on the common fork-join pool (on Java 25 even
    // when it has a single thread). Application work that blocks every thread of it must not hold
    // a heartbeat back: the keepalives go as requests and the lock stays held (ADR 0230).
    RealLockServer server = RealLockServer.get();
    int threads = ForkJoinPool.getCommonPoolParallelism();
    CountDownLatch blocked = new CountDownLatch(threads);
    CountDownLatch release = new CountDownLatch(1);
    for (int i = 0; i < threads; i++) {
      ForkJoinPool.commonPool()
          .execute(
              () -> {
                blocked.countDown();
                try {
                  release.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
    }
    try {
      assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
      try (DefaultLockClient client =
          TestSettings.against(server.baseUrl())
              .owner("pool-starved")
              .ttl(Duration.ofMillis(1500))
              .timeouts(Duration.ofMillis(400), Duration.ofMillis(450))
              .startClient()) {
        HeldLock held = client.acquire(LockKey.of(key), Duration.ZERO);
        long requests = server.keepAliveRequests();

        // Six heartbeats and more, each sent as a request while no stream can open; a heartbeat
        // that waited the 850 ms an opening may take would lose the lock (1.05 s without one).
        await()
            .pollDelay(Duration.ofSeconds(3))
            .atMost(Duration.ofSeconds(5))
            .untilAsserted(() -> assertThat(held.isHeld()).isTrue());

        assertThat(held.lostReason()).isEmpty();
        assertThat(server.keepAliveRequests() - requests)
            .as("keepalives sent as requests")
            .isGreaterThanOrEqualTo(5);
        assertThat(events.named("lock.keepalive_stream.unavailable"))
            .singleElement()
            .satisfies(e -> assertThat(String.valueOf(e.get("error"))).contains("not open within"));
        held.close();
      }
    } finally {
      release.countDown();
    }
  }
}
