package dev.fencepost.lockserver.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.lockserver.LockServerApplication;
import dev.fencepost.lockserver.TestIdentities;
import dev.fencepost.lockserver.http.LockServerClient.Response;
import dev.fencepost.testsupport.grants.TestGrants;
import dev.fencepost.testsupport.metrics.ScrapeCardinality;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The v1 HTTP contract of docs/lock-server.md: status codes, problem codes and bodies. Every
 * backend subclasses it unchanged and supplies the properties that select it; the lock server is
 * booted for real on a random loopback port.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class LockServerHttpContractTest {

  private ConfigurableApplicationContext server;
  protected LockServerClient client;
  protected LockServerClient management;

  /** Properties selecting and configuring the backend, e.g. {@code fencepost.lock.backend}. */
  protected abstract Map<String, Object> backendProperties();

  @BeforeAll
  void startServer() {
    Map<String, Object> properties = new HashMap<>(backendProperties());
    properties.put("server.port", "0");
    properties.put("server.address", "127.0.0.1");
    properties.put("management.server.port", "0");
    properties.put("fencepost.lock.min-ttl", "1s");
    properties.put("fencepost.lock.max-ttl", "5m");
    properties.put("fencepost.lock.max-wait", "30s");
    properties.put("fencepost.lock.max-body-size", "4KB");
    properties.put("logging.structured.format.console", "");
    properties.put("fencepost.lock.grant-signing.jwk-set-file", TestGrants.keys().privateFile());
    properties.put(
        "spring.security.oauth2.resourceserver.jwt.jwk-set-uri", TestIdentities.ISSUER.jwkSetUri());
    // Command-line arguments: they outrank application.yml, as in production.
    server =
        LockServerApplication.application()
            .run(
                properties.entrySet().stream()
                    .map(e -> "--" + e.getKey() + "=" + e.getValue())
                    .toArray(String[]::new));
    int port = ((WebServerApplicationContext) server).getWebServer().getPort();
    client = new LockServerClient("http://127.0.0.1:" + port);
    management = LockServerClient.managementOf(server);
  }

  @AfterAll
  void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  protected static String key() {
    return "payout:http-" + UUID.randomUUID();
  }

  @Test
  void createSessionAnswers201WithIdOwnerTtlAndExpiry() {
    Response response = client.createSession("worker-1", 15_000);
    assertThat(response.status()).isEqualTo(201);
    assertThat(response.json().get("sessionId").asString()).isNotBlank();
    assertThat(response.json().get("owner").asString()).isEqualTo("worker-1");
    assertThat(response.json().get("ttlMillis").asLong()).isEqualTo(15_000);
    assertThat(response.json().get("expiresAt").asString()).isNotBlank();
  }

  @Test
  void keepaliveAnswers200ForALiveSessionAnd404SessionNotFoundOtherwise() {
    String session = client.newSession("worker-1");
    assertThat(client.post("/v1/sessions/" + session + "/keepalive", "").status()).isEqualTo(200);

    Response unknown = client.post("/v1/sessions/" + UUID.randomUUID() + "/keepalive", "");
    assertThat(unknown.status()).isEqualTo(404);
    assertThat(unknown.code()).isEqualTo("SESSION_NOT_FOUND");
    assertThat(unknown.contentType()).startsWith("application/problem+json");
  }

  @Test
  void deletingASessionAnswers204AndReleasesItsLocks() {
    String session = client.newSession("worker-1");
    String key = key();
    assertThat(client.acquire(key, session, 0).status()).isEqualTo(200);

    assertThat(client.delete("/v1/sessions/" + session).status()).isEqualTo(204);

    assertThat(client.get("/v1/locks/" + key).json().get("held").asBoolean()).isFalse();
    assertThat(client.post("/v1/sessions/" + session + "/keepalive", "").status()).isEqualTo(404);
  }

  @Test
  void acquireAnswersAGrantAndTheSameTokenToTheSameSession() {
    String session = client.newSession("worker-1");
    String key = key();

    Response grant = client.acquire(key, session, 0);
    Response again = client.acquire(key, session, 0);

    assertThat(grant.status()).isEqualTo(200);
    assertThat(grant.json().get("key").asString()).isEqualTo(key);
    assertThat(grant.json().get("owner").asString()).isEqualTo("worker-1");
    assertThat(grant.json().get("sessionId").asString()).isEqualTo(session);
    assertThat(grant.token()).isPositive();
    assertThat(grant.json().get("acquiredAt").asString()).isNotBlank();
    assertThat(grant.json().get("expiresAt").asString()).isNotBlank();
    assertThat(again.token()).isEqualTo(grant.token());
  }

  @Test
  void acquireOfAHeldKeyAnswers409LockHeld() {
    String key = key();
    client.acquire(key, client.newSession("worker-1"), 0);

    Response refused = client.acquire(key, client.newSession("worker-2"), 0);

    assertThat(refused.status()).isEqualTo(409);
    assertThat(refused.code()).isEqualTo("LOCK_HELD");
  }

  @Test
  void acquireWithAnUnknownSessionAnswers404() {
    Response response = client.acquire(key(), UUID.randomUUID().toString(), 0);
    assertThat(response.status()).isEqualTo(404);
    assertThat(response.code()).isEqualTo("SESSION_NOT_FOUND");
  }

  @Test
  void aWaitingAcquireIsAnsweredWhenTheHolderReleases() throws Exception {
    String key = key();
    String holder = client.newSession("worker-1");
    long token = client.acquire(key, holder, 0).token();
    String waiter = client.newSession("worker-2");

    CompletableFuture<Response> waiting =
        CompletableFuture.supplyAsync(() -> client.acquire(key, waiter, 20_000));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> client.get("/v1/locks/" + key).json().get("waiters").asInt() == 1);
    assertThat(client.release(key, holder, token).status()).isEqualTo(204);

    Response granted = waiting.get(15, TimeUnit.SECONDS);
    assertThat(granted.status()).isEqualTo(200);
    assertThat(granted.token()).isGreaterThan(token);
  }

  @Test
  void renewAnswersTheGrantOr409LockLost() {
    String session = client.newSession("worker-1");
    String key = key();
    long token = client.acquire(key, session, 0).token();

    Response renewed = client.renew(key, session, token);
    assertThat(renewed.status()).isEqualTo(200);
    assertThat(renewed.token()).isEqualTo(token);

    client.release(key, session, token);
    Response lost = client.renew(key, session, token);
    assertThat(lost.status()).isEqualTo(409);
    assertThat(lost.code()).isEqualTo("LOCK_LOST");
  }

  @Test
  void releaseAnswers204ForTheHolderAnd409NotHolderForAnyoneElse() {
    String holder = client.newSession("worker-1");
    String other = client.newSession("worker-2");
    String key = key();
    long token = client.acquire(key, holder, 0).token();

    Response foreign = client.release(key, other, token);
    assertThat(foreign.status()).isEqualTo(409);
    assertThat(foreign.code()).isEqualTo("NOT_HOLDER");
    assertThat(client.get("/v1/locks/" + key).json().get("held").asBoolean()).isTrue();

    assertThat(client.release(key, holder, token).status()).isEqualTo(204);
    assertThat(client.release(key, holder, token).code()).isEqualTo("NOT_HOLDER");
  }

  @Test
  @Tag("FR-07")
  void inspectReportsHolderTokenTimesAndWaiters() {
    String session = client.newSession("worker-1");
    String key = key();
    long token = client.acquire(key, session, 0).token();

    Response info = client.as(TestIdentities.operator("oncall")).get("/v1/locks/" + key);

    assertThat(info.status()).isEqualTo(200);
    assertThat(info.json().get("key").asString()).isEqualTo(key);
    assertThat(info.json().get("held").asBoolean()).isTrue();
    assertThat(info.json().get("owner").asString()).isEqualTo("worker-1");
    assertThat(info.json().get("sessionId").asString()).isEqualTo(session);
    assertThat(info.json().get("token").asLong()).isEqualTo(token);
    assertThat(info.json().get("acquiredAt").asString()).isNotBlank();
    assertThat(info.json().get("expiresAt").asString()).isNotBlank();
    assertThat(info.json().get("waiters").asInt()).isZero();

    Response free = client.get("/v1/locks/" + key());
    assertThat(free.json().get("held").asBoolean()).isFalse();
  }

  @Test
  void revokeAnswersTheRevokedGrantAndTheNextTokenIsHigher() {
    String session = client.newSession("worker-1");
    String key = key();
    long token = client.acquire(key, session, 0).token();

    Response revoked = client.revoke(key, "oncall-jane", "holder stuck, INC-7");

    assertThat(revoked.status()).isEqualTo(200);
    assertThat(revoked.json().get("key").asString()).isEqualTo(key);
    assertThat(revoked.json().get("revokedToken").asLong()).isEqualTo(token);
    assertThat(revoked.json().get("revokedOwner").asString()).isEqualTo("worker-1");
    Response lost = client.renew(key, session, token);
    assertThat(lost.code()).isEqualTo("LOCK_LOST");
    assertThat(lost.json().get("reason").asString()).isEqualTo("REVOKED");
    assertThat(client.acquire(key, client.newSession("worker-2"), 0).token()).isGreaterThan(token);
  }

  @Test
  @Tag("FR-08")
  @Tag("NFR-13")
  void revokeWithoutOperatorOrReasonIsRefusedAndRevokesNothing() {
    String session = client.newSession("worker-1");
    String key = key();
    client.acquire(key, session, 0);

    LockServerClient jane = client.as(TestIdentities.operator("jane"));
    Response noReason = jane.post("/v1/admin/locks/" + key + "/revoke", "{\"operator\":\"jane\"}");
    Response blankOperator =
        jane.post(
            "/v1/admin/locks/" + key + "/revoke", "{\"operator\":\" \",\"reason\":\"stuck\"}");

    assertThat(noReason.status()).isEqualTo(400);
    assertThat(blankOperator.status()).isEqualTo(400);
    assertThat(client.get("/v1/locks/" + key).json().get("held").asBoolean()).isTrue();
  }

  /** Each kind of bad input gets a 4xx problem with a stable code; none reaches the backend. */
  @ParameterizedTest(name = "{0} {1} -> {3} {4}")
  @CsvSource(
      delimiter = '|',
      value = {
        "POST|/v1/sessions|{\"owner\":\"w\",\"ttlMillis\":|400|INVALID_REQUEST",
        "POST|/v1/sessions|not json|400|INVALID_REQUEST",
        "POST|/v1/sessions|{\"owner\":\"w\"}|400|INVALID_REQUEST",
        "POST|/v1/sessions|{\"owner\":\"w\",\"ttlMillis\":\"soon\"}|400|INVALID_REQUEST",
        "POST|/v1/sessions|{\"owner\":\"w\",\"ttlMillis\":10}|400|INVALID_REQUEST",
        "POST|/v1/sessions|{\"owner\":\"w\",\"ttlMillis\":999999999999}|400|INVALID_REQUEST",
        "POST|/v1/sessions|{\"owner\":\"w\",\"ttlMillis\":-5}|400|INVALID_REQUEST",
        "POST|/v1/sessions|{\"owner\":\"\",\"ttlMillis\":5000}|400|INVALID_REQUEST",
        "POST|/v1/sessions|{\"owner\":[1,2],\"ttlMillis\":5000}|400|INVALID_REQUEST",
        "POST|/v1/sessions|[]|400|INVALID_REQUEST",
        "POST|/v1/sessions|{\"owner\":true,\"ttlMillis\":5000}|400|INVALID_REQUEST",
        "POST|/v1/sessions|{\"owner\":\"w\",\"ttlMillis\":\"5000\"}|400|INVALID_REQUEST",
        "POST|/v1/sessions|{\"owner\":\"w\",\"ttlMillis\":5000.5}|400|INVALID_REQUEST",
        "POST|/v1/locks/bad key/acquire|{}|400|INVALID_KEY",
        "POST|/v1/locks/bad$key/acquire|{\"sessionId\":\"x\"}|400|INVALID_KEY",
        "POST|/v1/locks/ok/acquire|{\"waitMillis\":0}|400|INVALID_REQUEST",
        "POST|/v1/locks/ok/acquire|{\"sessionId\":\"x\",\"waitMillis\":-1}|400|INVALID_REQUEST",
        "POST|/v1/locks/ok/acquire|{\"sessionId\":\"x\",\"waitMillis\":9999999}|400|INVALID_REQUEST",
        "POST|/v1/locks/ok/acquire|{\"sessionId\":\"x\",\"waitMillis\":\"abc\"}|400|INVALID_REQUEST",
        "POST|/v1/locks/ok/acquire|{\"sessionId\":{},\"waitMillis\":0}|400|INVALID_REQUEST",
        "POST|/v1/locks/ok/renew|{\"sessionId\":\"x\",\"token\":-3}|400|INVALID_REQUEST",
        "POST|/v1/locks/ok/renew|{\"sessionId\":\"x\",\"token\":0}|400|INVALID_REQUEST",
        "POST|/v1/locks/ok/renew|{\"sessionId\":\"x\",\"token\":\"seven\"}|400|INVALID_REQUEST",
        "POST|/v1/locks/ok/renew|{\"sessionId\":\"x\",\"token\":1.5e400}|400|INVALID_REQUEST",
        "POST|/v1/locks/ok/release|{\"sessionId\":\"x\"}|400|INVALID_REQUEST",
        "POST|/v1/locks/ok/release|{\"sessionId\":\"x\",\"token\":99999999999999999999999}|400|INVALID_REQUEST",
        "POST|/v1/locks/ok/acquire|{\"sessionId\":\"11111111-1111-1111-1111-111111111111\"}|404|SESSION_NOT_FOUND",
        // A payout worker may not revoke; the operator comes from the token (ADR 0131).
        "POST|/v1/admin/locks/ok/revoke|{\"reason\":\"r\"}|403|FORBIDDEN",
        "GET|/v1/locks/x%20y||400|INVALID_KEY",
        // Deny by default: a path or method no rule declares is refused before routing.
        "GET|/v1/nothing-here||403|FORBIDDEN",
        "DELETE|/v1/locks/ok/acquire||403|FORBIDDEN",
      })
  void badInputGetsA4xxProblemWithAStableCode(
      String method, String path, String body, int status, String code) {
    Response response =
        switch (method) {
          case "POST" -> client.post(path.replace(" ", "%20").replace("$", "%24"), body);
          case "GET" -> client.get(path);
          default -> client.delete(path);
        };
    assertThat(response.status()).as(response.body()).isEqualTo(status);
    assertThat(response.code()).as(response.body()).isEqualTo(code);
  }

  @Test
  void aKeyLongerThan128CharactersIsInvalid() {
    Response response = client.get("/v1/locks/" + "k".repeat(129));
    assertThat(response.status()).isEqualTo(400);
    assertThat(response.code()).isEqualTo("INVALID_KEY");
  }

  @Test
  void aBodyOverTheLimitIs413EvenWithoutAContentLength() {
    String huge = "{\"owner\":\"" + "x".repeat(10_000) + "\",\"ttlMillis\":5000}";
    Response declared = client.post("/v1/sessions", huge);
    assertThat(declared.status()).isEqualTo(413);
    assertThat(declared.code()).isEqualTo("PAYLOAD_TOO_LARGE");

    Response streamed =
        client.send(
            java.net.http.HttpRequest.newBuilder(java.net.URI.create(baseUrl() + "/v1/sessions"))
                .header("Content-Type", "application/json")
                .POST(
                    java.net.http.HttpRequest.BodyPublishers.ofInputStream(
                        () ->
                            new java.io.ByteArrayInputStream(
                                huge.getBytes(StandardCharsets.UTF_8))))
                .build());
    assertThat(streamed.status()).isEqualTo(413);
  }

  @Test
  void aWrongMediaTypeIs415() {
    Response response =
        client.post("/v1/sessions", "text/plain", "owner=w".getBytes(StandardCharsets.UTF_8));
    assertThat(response.status()).isEqualTo(415);
    assertThat(response.code()).isEqualTo("UNSUPPORTED_MEDIA_TYPE");
  }

  @Test
  @Tag("NFR-09")
  void metricsNeverCarryAKeyOwnerSessionOrTokenAsATag() {
    String owner = "cardinality-probe-" + UUID.randomUUID();
    String session = client.newSession(owner);
    String key = key();
    long token = client.acquire(key, session, 0).token();
    client.renew(key, session, token);
    client.release(key, session, token);
    client.revoke(key, "oncall", "probe");

    String scrape = management.get("/actuator/prometheus").body();

    assertThat(scrape).contains("fencepost_lock_operations_seconds_count");
    assertThat(scrape).contains("fencepost_lock_revokes_total");
    assertThat(scrape).doesNotContain(owner).doesNotContain(session).doesNotContain(key);
    assertThat(scrape).doesNotContainPattern("(token|key|owner|session|sessionId)=\"");
    ScrapeCardinality.assertBounded(
        scrape, java.util.List.of(owner, session, key, String.valueOf(token), "oncall", "probe"));
  }

  @Test
  void healthIsUp() {
    Response health = management.get("/actuator/health");
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.json().get("status").asString()).isEqualTo("UP");
  }

  private String baseUrl() {
    int port = ((WebServerApplicationContext) server).getWebServer().getPort();
    return "http://127.0.0.1:" + port;
  }
}
