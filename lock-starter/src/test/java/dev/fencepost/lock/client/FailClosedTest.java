package dev.fencepost.lock.client;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.equalToJson;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static dev.fencepost.lock.client.testing.LockServerStubs.json;
import static dev.fencepost.lock.client.testing.LockServerStubs.problemAnswer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.LockServiceUnavailableException;
import dev.fencepost.lock.client.impl.DefaultLockClient;
import dev.fencepost.lock.client.impl.DefaultLockTemplate;
import dev.fencepost.lock.client.impl.MicrometerLockClientMetrics;
import dev.fencepost.lock.client.testing.LockServerStubs;
import dev.fencepost.lock.client.testing.TestSettings;
import dev.fencepost.lock.client.testing.Work;
import dev.fencepost.testsupport.logging.CapturedEvents;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * UC-08, FR-27, FR-28: an unavailable lock service makes acquire fail closed after a bounded number
 * of jittered attempts, and the work never runs. Also the heartbeat's own failure modes (slow or
 * 503 keepalive). The lock server is played by WireMock, which makes these protocol edge cases
 * exact and countable.
 */
@Tag("FR-27")
@Tag("FR-28")
@Tag("UC-08")
class FailClosedTest {

  private static final Logger log = LoggerFactory.getLogger(FailClosedTest.class);
  private static final String UNAVAILABLE =
      LockServerStubs.problem(503, "BACKEND_UNAVAILABLE", "lockdb unreachable");

  @RegisterExtension static WireMockExtension lockServer = LockServerStubs.server();

  @RegisterExtension final CapturedEvents events = new CapturedEvents();

  private final List<DefaultLockClient> clients = new ArrayList<>();

  @AfterEach
  void closeClients() {
    clients.forEach(DefaultLockClient::close);
  }

  @Test
  void acquireFailsClosedWithinTheAttemptBoundSpreadByJitterAndTheWorkNeverRuns() throws Exception {
    lockServer.stubFor(any(anyUrl()).willReturn(problemAnswer(503, UNAVAILABLE)));
    int clientCount = 4;
    int maxAttempts = 6;
    Duration maxElapsed = Duration.ofSeconds(15);
    List<LockTemplate> templates = new ArrayList<>();
    for (int i = 0; i < clientCount; i++) {
      DefaultLockClient client =
          client(
              TestSettings.against(lockServer.baseUrl() + "/c" + i)
                  .ttl(Duration.ofSeconds(30)) // one start-up heartbeat only, then quiet
                  .retry(maxAttempts, Duration.ofMillis(50), Duration.ofMillis(400), maxElapsed));
      templates.add(new DefaultLockTemplate(client, Duration.ZERO));
    }
    awaitStartUpHeartbeatsFailed();
    lockServer.resetRequests();

    AtomicInteger workRuns = new AtomicInteger();
    CountDownLatch go = new CountDownLatch(1);
    List<CompletableFuture<Throwable>> outcomes = new ArrayList<>();
    for (LockTemplate template : templates) {
      outcomes.add(
          CompletableFuture.supplyAsync(
              () -> {
                Work.awaitQuietly(go);
                try {
                  template.execute("payout:acc-1", lock -> workRuns.incrementAndGet());
                  return null;
                } catch (RuntimeException e) {
                  return e;
                }
              }));
    }
    go.countDown();

    List<List<Long>> attemptTimes = new ArrayList<>();
    for (int i = 0; i < clientCount; i++) {
      assertThat(outcomes.get(i).get(20, TimeUnit.SECONDS))
          .isInstanceOf(LockServiceUnavailableException.class);
      List<Long> times =
          lockServer.findAll(anyRequestedFor(urlPathMatching("/c" + i + "/.*"))).stream()
              .map(LoggedRequest::getLoggedDate)
              .map(java.util.Date::getTime)
              .sorted()
              .toList();
      assertThat(times).as("attempts of client %d", i).hasSize(maxAttempts);
      assertThat(times.get(times.size() - 1) - times.get(0)).isLessThan(maxElapsed.toMillis());
      attemptTimes.add(times);
    }
    assertThat(workRuns).hasValue(0);

    // Jitter: no two clients retry in lockstep, and their attempts spread out.
    for (int i = 0; i < clientCount; i++) {
      for (int j = i + 1; j < clientCount; j++) {
        assertThat(maxGapDifference(attemptTimes.get(i), attemptTimes.get(j)))
            .as("clients %d and %d differ in at least one backoff by more than 5 ms", i, j)
            .isGreaterThan(5);
      }
    }
    List<Long> totals =
        attemptTimes.stream().map(t -> t.get(t.size() - 1) - t.get(0)).sorted().toList();
    assertThat(totals.get(totals.size() - 1) - totals.get(0)).isGreaterThan(20);
    log.atInfo()
        .addKeyValue("event", "test.measured")
        .addKeyValue("totalBackoffMillis", totals)
        .log(
            "{} clients, {} attempts each; total backoff per client (ms): {}",
            clientCount,
            maxAttempts,
            totals);
    assertThat(events.named("lock.acquire.failed")).hasSize(clientCount);
  }

  @Test
  void theTimeBudgetStopsRetriesBeforeTheAttemptBudget() {
    // The session is healthy and only acquire answers 503, so every request on the acquire path is
    // one of the acquire's own attempts: the heartbeat's requests go elsewhere and cannot widen the
    // measured span (they did when the whole server answered 503).
    healthySession("s-budget", 30_000);
    lockServer.stubFor(
        post(urlPathMatching("/v1/locks/.*/acquire")).willReturn(problemAnswer(503, UNAVAILABLE)));
    Duration maxElapsed = Duration.ofSeconds(2);
    int maxAttempts = 20;
    DefaultLockClient client =
        client(
            TestSettings.against(lockServer.baseUrl())
                .ttl(Duration.ofSeconds(30))
                // Full-jitter pauses of up to 600 ms: 19 of them outlast 2 s by far, so time ends
                // it.
                .retry(maxAttempts, Duration.ofMillis(600), Duration.ofMillis(600), maxElapsed));

    long calledAt = System.currentTimeMillis();
    assertThatThrownBy(() -> client.acquire(LockKey.of("payout:acc-2"), Duration.ZERO))
        .isInstanceOf(LockServiceUnavailableException.class)
        .hasMessageMatching("(?s).* after ([2-9]|1[0-9]) attempt\\(s\\) in .*");

    List<Long> attempts =
        lockServer.findAll(postRequestedFor(urlPathMatching("/v1/locks/.*/acquire"))).stream()
            .map(r -> r.getLoggedDate().getTime())
            .sorted()
            .toList();
    assertThat(attempts).hasSizeBetween(2, maxAttempts - 1);
    // No attempt starts once the budget, counted from the call, is spent. The client decides
    // before its pause ends; the request then reaches the stand-in a few milliseconds later (the
    // park's overshoot, the connection), so the check allows that much. Without the budget the
    // twentieth attempt would come seconds later, not milliseconds.
    Duration arrivalSlack = Duration.ofMillis(200);
    assertThat(attempts.get(attempts.size() - 1) - calledAt)
        .isLessThan(maxElapsed.plus(arrivalSlack).toMillis());
  }

  @Test
  void aRequestTheServerRejectsIsNeverRetriedAndRunsNoWork() {
    lockServer.stubFor(
        post(urlPathEqualTo("/v1/sessions"))
            .willReturn(
                problemAnswer(
                    400, LockServerStubs.problem(400, "INVALID_REQUEST", "ttl out of bounds"))));
    DefaultLockClient client =
        client(TestSettings.against(lockServer.baseUrl()).ttl(Duration.ofSeconds(30)));
    awaitStartUpHeartbeatsFailed();
    lockServer.resetRequests();
    AtomicInteger workRuns = new AtomicInteger();

    assertThatThrownBy(
            () ->
                new DefaultLockTemplate(client, Duration.ZERO)
                    .execute("payout:acc-3", lock -> workRuns.incrementAndGet()))
        .isInstanceOfSatisfying(
            LockRequestRejectedException.class,
            e -> assertThat(e.code()).isEqualTo("INVALID_REQUEST"));

    assertThat(lockServer.findAll(anyRequestedFor(anyUrl()))).hasSize(1);
    assertThat(workRuns).hasValue(0);
  }

  @Test
  void anUnreachableServerFailsClosedAfterTheBoundedAttempts() throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    DefaultLockClient client =
        client(
            TestSettings.against("http://127.0.0.1:" + closedPort)
                .retry(3, Duration.ofMillis(10), Duration.ofMillis(20), Duration.ofSeconds(2)));
    AtomicInteger workRuns = new AtomicInteger();

    assertThatThrownBy(
            () ->
                new DefaultLockTemplate(client, Duration.ZERO)
                    .tryExecute("payout:acc-4", lock -> workRuns.incrementAndGet()))
        .isInstanceOf(LockServiceUnavailableException.class)
        .hasMessageContaining("3 attempt(s)");

    assertThat(workRuns).hasValue(0);
    assertThat(events.named("lock.acquire.failed"))
        .singleElement()
        .satisfies(e -> assertThat(e).containsEntry("attempts", 3));
  }

  @Test
  void aHeartbeatStuckInASlowKeepaliveDoesNotDelayTheLockLostSignal() {
    lockServer.stubFor(
        post(urlPathEqualTo("/v1/sessions"))
            .willReturn(json(201, LockServerStubs.session("s-slow", 4000))));
    lockServer.stubFor(
        post(urlPathMatching("/v1/locks/.*/acquire"))
            .willReturn(json(200, LockServerStubs.grant("payout:acc-5", "s-slow", 41, 4000))));
    lockServer.stubFor(
        post(urlPathEqualTo("/v1/sessions/s-slow/keepalive"))
            .willReturn(json(200, LockServerStubs.session("s-slow", 4000)).withFixedDelay(4000)));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    DefaultLockClient client = client(TestSettings.against(lockServer.baseUrl()), registry);
    AtomicReference<String> signalledOn = new AtomicReference<>();
    AtomicReference<LockLostException.Reason> reason = new AtomicReference<>();

    HeldLock lock = client.acquire(LockKey.of("payout:acc-5"), Duration.ZERO);
    lock.onLost(
        (l, r) -> {
          reason.set(r);
          signalledOn.set(Thread.currentThread().getName());
        });

    await().atMost(Duration.ofSeconds(5)).until(() -> reason.get() != null);
    assertThat(reason.get()).isEqualTo(LockLostException.Reason.EXPIRED);
    assertThat(signalledOn.get()).isEqualTo("fencepost-lock-watchdog");
    assertThat(lock.isHeld()).isFalse();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                registry
                        .get("fencepost.lock.client.heartbeat")
                        .tag("outcome", "failed")
                        .timer()
                        .count()
                    > 0);
    assertThat(registry.get("fencepost.lock.client.heartbeat").tag("outcome", "ok").timer().count())
        .isZero();
    lock.close();
  }

  @Test
  void aKeepaliveAnswering503IsAHeartbeatFailureAndTheRecoveryIsReported() {
    lockServer.stubFor(
        post(urlPathEqualTo("/v1/sessions"))
            .willReturn(json(201, LockServerStubs.session("s-flaky", 3000))));
    lockServer.stubFor(
        post(urlPathEqualTo("/v1/sessions/s-flaky/keepalive"))
            .inScenario("flaky")
            .whenScenarioStateIs(Scenario.STARTED)
            .willReturn(problemAnswer(503, UNAVAILABLE))
            .willSetStateTo("recovered"));
    lockServer.stubFor(
        post(urlPathEqualTo("/v1/sessions/s-flaky/keepalive"))
            .inScenario("flaky")
            .whenScenarioStateIs("recovered")
            .willReturn(json(200, LockServerStubs.session("s-flaky", 3000))));

    DefaultLockClient client = client(TestSettings.against(lockServer.baseUrl()));

    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> !events.named("lock.heartbeat.recovered").isEmpty());
    assertThat(events.named("lock.heartbeat.failed"))
        .first()
        .satisfies(e -> assertThat(e).containsEntry("level", "WARN"));
    assertThat(client.sessionStatus().state()).isEqualTo(SessionStatus.State.CONNECTED);
  }

  @Test
  void aGrantWhoseEveryAnswerWasLostIsReleasedByTheNextHeartbeat() {
    // The server granted, but every answer arrived after the read timeout: the caller failed
    // closed, yet the session would hold the key until it dies. The heartbeat re-acquires it with
    // the same session (same grant, same token) and releases it.
    healthySession("s-orphan", 4000);
    lockServer.stubFor(
        post(urlPathMatching("/v1/locks/.*/acquire"))
            .willReturn(
                json(200, LockServerStubs.grant("payout:acc-6", "s-orphan", 77, 4000))
                    .withFixedDelay(1500)));
    lockServer.stubFor(
        post(urlPathMatching("/v1/locks/.*/release")).willReturn(aResponse().withStatus(204)));
    DefaultLockClient client =
        client(
            TestSettings.against(lockServer.baseUrl())
                .retry(2, Duration.ofMillis(10), Duration.ofMillis(20), Duration.ofSeconds(5)));

    assertThatThrownBy(() -> client.acquire(LockKey.of("payout:acc-6"), Duration.ZERO))
        .isInstanceOf(LockServiceUnavailableException.class);
    lockServer.stubFor(
        post(urlPathMatching("/v1/locks/.*/acquire"))
            .willReturn(json(200, LockServerStubs.grant("payout:acc-6", "s-orphan", 77, 4000))));

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !events.named("lock.orphan.released").isEmpty());
    lockServer.verify(
        postRequestedFor(urlPathMatching("/v1/locks/.*/release"))
            .withRequestBody(equalToJson("{\"sessionId\":\"s-orphan\",\"token\":77}")));
    assertThat(client.activeGrants()).isZero();
  }

  private DefaultLockClient client(TestSettings settings) {
    return client(settings, new SimpleMeterRegistry());
  }

  private DefaultLockClient client(TestSettings settings, SimpleMeterRegistry registry) {
    DefaultLockClient client = settings.startClient(new MicrometerLockClientMetrics(registry));
    clients.add(client);
    return client;
  }

  /** Each client's first heartbeat tries to create its session at start; wait until it failed. */
  /** The stand-in creates session {@code id} and extends it on every keepalive. */
  private static void healthySession(String id, long ttlMillis) {
    lockServer.stubFor(
        post(urlPathEqualTo("/v1/sessions"))
            .willReturn(json(201, LockServerStubs.session(id, ttlMillis))));
    lockServer.stubFor(
        post(urlPathEqualTo("/v1/sessions/" + id + "/keepalive"))
            .willReturn(json(200, LockServerStubs.session(id, ttlMillis))));
  }

  private void awaitStartUpHeartbeatsFailed() {
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                clients.stream()
                    .allMatch(c -> c.sessionStatus().consecutiveHeartbeatFailures() >= 1));
  }

  private static long maxGapDifference(List<Long> a, List<Long> b) {
    long max = 0;
    for (int k = 1; k < a.size(); k++) {
      long gapA = a.get(k) - a.get(k - 1);
      long gapB = b.get(k) - b.get(k - 1);
      max = Math.max(max, Math.abs(gapA - gapB));
    }
    return max;
  }
}
