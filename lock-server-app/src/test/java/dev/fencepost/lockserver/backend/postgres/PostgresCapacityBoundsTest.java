package dev.fencepost.lockserver.backend.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.lockserver.http.LockServerClient;
import dev.fencepost.lockserver.http.LockServerClient.Response;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The lock server's capacity bounds (ADR 0165) on the real server and lockdb: waiting acquires are
 * capped in total and per session, live sessions are capped, a request beyond a cap gets 429 with
 * {@code Retry-After} and changes nothing, and with the waiting cap reached a keepalive still gets
 * a request thread. Tomcat runs with 12 threads here, so that 24 waiting acquires would take them
 * all without the cap.
 */
class PostgresCapacityBoundsTest {

  private static final int TOMCAT_THREADS = 12;
  private static final int MAX_WAITING = 4;
  private static final int MAX_WAITING_PER_SESSION = 3;
  private static final int MAX_SESSIONS = 8;
  private static final long LONG_WAIT_MILLIS = 30_000;

  @RegisterExtension
  static EmbeddedPostgresExtension lockdb =
      EmbeddedPostgresExtension.withChangelog(PostgresBackends.LOCKDB_CHANGELOG);

  private static ConfigurableApplicationContext server;
  private static LockServerClient client;
  private static ExecutorService callers;

  private final List<String> sessions = new ArrayList<>();
  private final List<CompletableFuture<Response>> inFlight = new ArrayList<>();
  private String holder;

  @BeforeAll
  static void start() {
    server =
        PostgresLockServer.start(
            lockdb,
            "--server.tomcat.threads.max=" + TOMCAT_THREADS,
            "--fencepost.lock.max-waiting-acquires=" + MAX_WAITING,
            "--fencepost.lock.max-waiting-acquires-per-session=" + MAX_WAITING_PER_SESSION,
            "--fencepost.lock.reserved-request-threads=" + (TOMCAT_THREADS - MAX_WAITING),
            "--fencepost.lock.max-sessions=" + MAX_SESSIONS,
            "--fencepost.lock.max-wait=60s",
            "--fencepost.lock.capacity-retry-after=2s");
    client = LockServerClient.of(server);
    callers = Executors.newFixedThreadPool(32);
  }

  @AfterAll
  static void stop() {
    callers.shutdownNow();
    server.close();
  }

  /**
   * Ends every wait this test started: waiter sessions first (their next attempt then finds no
   * session), then the holder's, whose freed key wakes them.
   */
  @AfterEach
  void endWaits() throws Exception {
    for (String session : sessions) {
      if (!session.equals(holder)) {
        client.delete("/v1/sessions/" + session);
      }
    }
    if (holder != null) {
      client.delete("/v1/sessions/" + holder);
    }
    for (CompletableFuture<Response> call : inFlight) {
      call.get(LONG_WAIT_MILLIS + 10_000, TimeUnit.MILLISECONDS);
    }
    await().until(() -> waitersInLockdb() == 0 && liveSessionsInLockdb() == 0);
  }

  @Test
  void anAcquireThatWouldWaitBeyondTheServerCapGets429WithRetryAfterAndChangesNothing() {
    String key = heldKey("cap-total");
    String first = session("waiter-a");
    String second = session("waiter-b");
    waitFor(key, first, 2);
    waitFor(key, second, 2);
    await().until(() -> waitersInLockdb() == MAX_WAITING);

    String late = session("waiter-c");
    String before = snapshot();
    Response refused = client.acquire(key, late, 10_000);

    assertThat(refused.status()).as(refused.body()).isEqualTo(429);
    assertThat(refused.contentType()).startsWith("application/problem+json");
    assertThat(refused.code()).isEqualTo("TOO_MANY_WAITING_ACQUIRES");
    assertThat(refused.json().get("limit").asString()).isEqualTo("waiting_acquires");
    assertThat(refused.retryAfter()).isEqualTo("2");
    assertThat(snapshot()).isEqualTo(before);
    // An acquire that does not wait is as short as a keepalive and is not capped.
    assertThat(client.acquire(key, late, 0).code()).isEqualTo("LOCK_HELD");
    assertThat(rejections("waiting_acquires")).isGreaterThanOrEqualTo(1.0);
  }

  @Test
  void oneSessionCannotTakeTheWholeWaitingCap() {
    String key = heldKey("cap-session");
    String greedy = session("greedy");
    waitFor(key, greedy, MAX_WAITING_PER_SESSION);
    await().until(() -> waitersInLockdb() == MAX_WAITING_PER_SESSION);

    String before = snapshot();
    Response refused = client.acquire(key, greedy, 10_000);

    assertThat(refused.status()).as(refused.body()).isEqualTo(429);
    assertThat(refused.code()).isEqualTo("TOO_MANY_WAITING_ACQUIRES");
    assertThat(refused.json().get("limit").asString()).isEqualTo("session_waiting_acquires");
    assertThat(refused.retryAfter()).isNotBlank();
    assertThat(snapshot()).isEqualTo(before);
    // The place it could not take is still there for another session.
    waitFor(key, session("modest"), 1);
    await().until(() -> waitersInLockdb() == MAX_WAITING);
  }

  /**
   * Fills the waiting cap and sends many more waiting acquires at once, then a keepalive: it gets a
   * thread, answers within the session's TTL and the session lives on. Without the cap the waiting
   * acquires hold every request thread for their whole wait and the keepalive times out.
   */
  @Test
  void withTheWaitingCapReachedAKeepaliveStillAnswersAndItsSessionStaysAlive() {
    long ttlMillis = 5_000;
    Response created = client.createSession("keepalive-probe", ttlMillis);
    assertThat(created.status()).isEqualTo(201);
    String probe = created.json().get("sessionId").asString();
    sessions.add(probe);
    String key = heldKey("cap-keepalive");
    List<String> waiters = List.of(session("flood-a"), session("flood-b"));
    AtomicInteger refused = new AtomicInteger();
    int flood = 2 * TOMCAT_THREADS;
    for (int i = 0; i < flood; i++) {
      String waiter = waiters.get(i % waiters.size());
      inFlight.add(
          CompletableFuture.supplyAsync(
              () -> {
                Response response = client.acquire(key, waiter, LONG_WAIT_MILLIS);
                if (response.status() == 429) {
                  refused.incrementAndGet();
                }
                return response;
              },
              callers));
    }
    // Every flood request has either been refused or is waiting (or, without the cap, they hold
    // every thread): read from lockdb, not through the server the flood may be starving.
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                refused.get() + waitersInLockdb() >= flood
                    || waitersInLockdb() >= TOMCAT_THREADS - 1);

    long start = System.nanoTime();
    Response kept =
        client.send(
            HttpRequest.newBuilder(URI.create(baseUrl() + "/v1/sessions/" + probe + "/keepalive"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofMillis(ttlMillis))
                .build());
    long millis = (System.nanoTime() - start) / 1_000_000;
    System.out.printf(
        "keepalive with %d waiting acquires and %d refused: %d ms%n",
        waitersInLockdb(), refused.get(), millis);

    assertThat(kept.status()).as(kept.body()).isEqualTo(200);
    assertThat(refused.get()).isEqualTo(flood - MAX_WAITING);
    assertThat(client.post("/v1/sessions/" + probe + "/keepalive", "").status()).isEqualTo(200);
    assertThat(
            JdbcClient.create(lockdb.dataSource())
                .sql(
                    "SELECT count(*) FROM lock_session WHERE id = :id::uuid AND expires_at > now()")
                .param("id", probe)
                .query(Long.class)
                .single())
        .isEqualTo(1L);
  }

  @Test
  void aSessionBeyondTheSessionCapGets429AndIsNotCreated() {
    for (int i = 0; i < MAX_SESSIONS; i++) {
      session("s" + i);
    }
    String before = snapshot();
    Response refused = client.createSession("one-too-many", 60_000);

    assertThat(refused.status()).as(refused.body()).isEqualTo(429);
    assertThat(refused.code()).isEqualTo("TOO_MANY_SESSIONS");
    assertThat(refused.json().get("limit").asString()).isEqualTo("sessions");
    assertThat(refused.retryAfter()).isEqualTo("2");
    assertThat(snapshot()).isEqualTo(before);
    assertThat(rejections("sessions")).isGreaterThanOrEqualTo(1.0);

    // A closed session frees its place.
    client.delete("/v1/sessions/" + sessions.remove(0));
    session("in-its-place");
  }

  // --- helpers ------------------------------------------------------------------------------

  /** A key held by this test's holder session, so acquires of it wait. */
  private String heldKey(String key) {
    holder = session("holder");
    assertThat(client.acquire(key, holder, 0).status()).isEqualTo(200);
    return key;
  }

  private String session(String owner) {
    String session = client.newSession(owner);
    sessions.add(session);
    return session;
  }

  private void waitFor(String key, String session, int count) {
    for (int i = 0; i < count; i++) {
      inFlight.add(
          CompletableFuture.supplyAsync(
              () -> client.acquire(key, session, LONG_WAIT_MILLIS), callers));
    }
  }

  private static String baseUrl() {
    return "http://127.0.0.1:"
        + ((org.springframework.boot.web.server.context.WebServerApplicationContext) server)
            .getWebServer()
            .getPort();
  }

  private static double rejections(String limit) {
    var meters = server.getBean(io.micrometer.core.instrument.MeterRegistry.class);
    var counter = meters.find("fencepost.lock.capacity.rejections").tag("limit", limit).counter();
    return counter == null ? 0 : counter.count();
  }

  private static long waitersInLockdb() {
    return JdbcClient.create(lockdb.dataSource())
        .sql("SELECT count(*) FROM lock_waiter")
        .query(Long.class)
        .single();
  }

  private static long liveSessionsInLockdb() {
    return JdbcClient.create(lockdb.dataSource())
        .sql("SELECT count(*) FROM lock_session WHERE expires_at > now()")
        .query(Long.class)
        .single();
  }

  private static String snapshot() {
    return LockdbSnapshot.of(lockdb.dataSource());
  }
}
