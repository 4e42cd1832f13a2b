package dev.fencepost.lock.client.impl;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.delete;
import static com.github.tomakehurst.wiremock.client.WireMock.equalToJson;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static dev.fencepost.lock.client.testing.LockServerStubs.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import dev.fencepost.lock.FencingToken;
import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.LockNotAcquiredException;
import dev.fencepost.lock.LockServiceUnavailableException;
import dev.fencepost.lock.NotHolderException;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lock.SessionNotFoundException;
import dev.fencepost.lock.client.LockRequestRejectedException;
import dev.fencepost.lock.client.testing.LockServerStubs;
import dev.fencepost.lock.client.testing.TestSettings;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The HTTP contract as the client reads it (docs/lock-server.md): which answers are results, which
 * are the contract's exceptions, and which are the one retryable failure.
 */
class LockServerHttpTest {

  private static final SessionId SESSION = SessionId.of("s-1");
  private static final LockKey KEY = LockKey.of("payout:acc-1");

  @RegisterExtension static WireMockExtension server = LockServerStubs.server();

  private LockServerHttp http;

  @BeforeEach
  void newHttp() {
    http =
        new LockServerHttp(
            TestSettings.against(server.baseUrl() + "/lock/")
                .ttl(Duration.ofSeconds(9))
                .timeouts(Duration.ofSeconds(1), Duration.ofSeconds(2))
                .build());
  }

  @Test
  void aBaseUrlWithAPathPrefixIsKeptAndTheBodyFollowsTheContract() {
    server.stubFor(
        post(urlPathEqualTo("/lock/v1/sessions"))
            .withRequestBody(equalToJson("{\"owner\":\"o\",\"ttlMillis\":2000}"))
            .willReturn(json(201, LockServerStubs.session("s-1", 2000))));

    assertThat(http.createSession("o", Duration.ofSeconds(2)).sessionId()).isEqualTo(SESSION);
  }

  @Test
  void aGrantIsReadIgnoringFieldsAddedToTheContractLater() {
    server.stubFor(
        post(urlPathMatching("/lock/v1/locks/.*/acquire"))
            .withRequestBody(equalToJson("{\"sessionId\":\"s-1\",\"waitMillis\":0}"))
            .willReturn(json(200, LockServerStubs.grant("payout:acc-1", "s-1", 7, 2000))));

    LockGrant grant = http.acquire(KEY, SESSION, Duration.ZERO);

    assertThat(grant.token()).isEqualTo(FencingToken.of(7));
    assertThat(Duration.between(grant.acquiredAt(), grant.expiresAt()))
        .isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void theContractsProblemCodesBecomeTheirExceptions() {
    server.stubFor(
        post(urlPathMatching("/lock/v1/locks/.*/acquire"))
            .willReturn(problem(409, "LOCK_HELD", null)));
    server.stubFor(
        post(urlPathMatching("/lock/v1/sessions/.*/keepalive"))
            .willReturn(problem(404, "SESSION_NOT_FOUND", null)));
    server.stubFor(
        post(urlPathMatching("/lock/v1/locks/.*/release"))
            .willReturn(problem(409, "NOT_HOLDER", null)));

    assertThatThrownBy(() -> http.acquire(KEY, SESSION, Duration.ZERO))
        .isInstanceOf(LockNotAcquiredException.class);
    assertThatThrownBy(() -> http.keepAlive(SESSION)).isInstanceOf(SessionNotFoundException.class);
    assertThatThrownBy(() -> http.release(KEY, SESSION, FencingToken.of(3)))
        .isInstanceOf(NotHolderException.class);
  }

  @Test
  void aLostGrantCarriesTheServersReasonAndDefaultsToNotHeld() {
    server.stubFor(
        post(urlPathMatching("/lock/v1/locks/payout(:|%3A)acc-1/renew"))
            .willReturn(problem(409, "LOCK_LOST", "REVOKED")));
    server.stubFor(
        post(urlPathMatching("/lock/v1/locks/payout(:|%3A)acc-2/renew"))
            .willReturn(problem(409, "LOCK_LOST", null)));

    assertThatThrownBy(() -> http.renew(KEY, SESSION, FencingToken.of(3)))
        .isInstanceOfSatisfying(
            LockLostException.class,
            e -> assertThat(e.reason()).isEqualTo(LockLostException.Reason.REVOKED));
    assertThatThrownBy(() -> http.renew(LockKey.of("payout:acc-2"), SESSION, FencingToken.of(3)))
        .isInstanceOfSatisfying(
            LockLostException.class,
            e -> assertThat(e.reason()).isEqualTo(LockLostException.Reason.NOT_HELD));
  }

  @ParameterizedTest
  @CsvSource({"3, 4", "9, 4", "15, 6", "45, 16", "120, 30", "3600, 30"})
  void anIdleConnectionIsKeptPastTheNextHeartbeatWithinFourAndThirtySeconds(
      long ttlSeconds, long keptSeconds) {
    // ADR 0225: heartbeats every ttl/3 reuse the connection the previous one used. Kept for 4 s,
    // at the default TTL of 15 s (a heartbeat every 5 s) every heartbeat paid a new TLS connection.
    LockServerHttp client =
        new LockServerHttp(
            TestSettings.against(server.baseUrl())
                .ttl(Duration.ofSeconds(ttlSeconds))
                .timeouts(Duration.ofMillis(200), Duration.ofMillis(500))
                .build());
    try {
      assertThat(client.connectionIdleFor()).isEqualTo(Duration.ofSeconds(keptSeconds));
    } finally {
      client.close();
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {502, 503, 504})
  void gatewayAndUnavailableAnswersAreTheRetryableFailure(int status) {
    server.stubFor(
        post(urlPathMatching("/lock/v1/locks/.*/acquire"))
            .willReturn(aResponse().withStatus(status).withBody("<html>bad gateway</html>")));

    assertThatThrownBy(() -> http.acquire(KEY, SESSION, Duration.ZERO))
        .isInstanceOf(LockServerUnreachableException.class);
  }

  @Test
  void otherClientErrorsAreRejectionsAndOtherServerErrorsAreUnavailableWithoutRetry() {
    server.stubFor(
        post(urlPathEqualTo("/lock/v1/sessions"))
            .willReturn(problem(400, "INVALID_REQUEST", null)));
    server.stubFor(
        post(urlPathMatching("/lock/v1/locks/.*/acquire"))
            .willReturn(problem(500, "INTERNAL_ERROR", null)));

    assertThatThrownBy(() -> http.createSession("o", Duration.ofSeconds(2)))
        .isInstanceOfSatisfying(
            LockRequestRejectedException.class,
            e -> {
              assertThat(e.status()).isEqualTo(400);
              assertThat(e.code()).isEqualTo("INVALID_REQUEST");
            });
    assertThatThrownBy(() -> http.acquire(KEY, SESSION, Duration.ZERO))
        .isInstanceOf(LockServiceUnavailableException.class)
        .isNotInstanceOf(LockServerUnreachableException.class);
  }

  /**
   * ADR 0133: a session used by a principal other than its creator is refused 403 {@code
   * SESSION_NOT_OWNED}. A correct client never sees it (it uses only its own sessions), so it is a
   * rejection naming the code, not the retryable failure and not a lost session.
   */
  @Test
  void aSessionNotOwnedAnswerIsARejectionNamingTheCode() {
    server.stubFor(
        post(urlPathMatching("/lock/v1/locks/.*/acquire"))
            .willReturn(problem(403, "SESSION_NOT_OWNED", null)));
    server.stubFor(
        post(urlPathEqualTo("/lock/v1/sessions/s-1/keepalive"))
            .willReturn(problem(403, "SESSION_NOT_OWNED", null)));

    assertThatThrownBy(() -> http.acquire(KEY, SESSION, Duration.ZERO))
        .isInstanceOfSatisfying(
            LockRequestRejectedException.class,
            e -> {
              assertThat(e.status()).isEqualTo(403);
              assertThat(e.code()).isEqualTo("SESSION_NOT_OWNED");
            });
    assertThatThrownBy(() -> http.keepAlive(SESSION))
        .isInstanceOf(LockRequestRejectedException.class)
        .isNotInstanceOf(SessionNotFoundException.class);
    server.verify(1, postRequestedFor(urlPathMatching("/lock/v1/locks/.*/acquire")));
  }

  @Test
  void anAnswerSlowerThanTheReadTimeoutIsTheRetryableFailure() {
    server.stubFor(
        post(urlPathMatching("/lock/v1/sessions/.*/keepalive"))
            .willReturn(json(200, LockServerStubs.session("s-1", 2000)).withFixedDelay(3000)));

    assertThatThrownBy(() -> http.keepAlive(SESSION))
        .isInstanceOf(LockServerUnreachableException.class);
  }

  @Test
  void aBodyStillStreamingWhenTheReadTimeoutExpiresIsTheRetryableFailure() {
    server.stubFor(
        post(urlPathMatching("/lock/v1/locks/.*/acquire"))
            .willReturn(
                json(200, LockServerStubs.grant("payout:acc-1", "s-1", 9, 2000))
                    .withChunkedDribbleDelay(10, 3000)));

    assertThatThrownBy(() -> http.acquire(KEY, SESSION, Duration.ZERO))
        .isInstanceOf(LockServerUnreachableException.class);
  }

  @Test
  void anAcquireMayTakeItsServerSideWaitOnTopOfTheReadTimeout() {
    server.stubFor(
        post(urlPathMatching("/lock/v1/locks/.*/acquire"))
            .willReturn(
                json(200, LockServerStubs.grant("payout:acc-1", "s-1", 8, 2000))
                    .withFixedDelay(2200)));

    assertThat(http.acquire(KEY, SESSION, Duration.ofMillis(1500)).token().value()).isEqualTo(8);
  }

  @Test
  void closingASessionIsADelete() {
    server.stubFor(
        delete(urlPathEqualTo("/lock/v1/sessions/s-1")).willReturn(aResponse().withStatus(204)));

    http.closeSession(SESSION);

    server.verify(0, postRequestedFor(urlPathMatching(".*")));
  }

  private static ResponseDefinitionBuilder problem(int status, String code, String reason) {
    String body =
        reason == null
            ? LockServerStubs.problem(status, code, "d")
            : LockServerStubs.problem(status, code, "d")
                .replace("}", ",\"reason\":\"" + reason + "\"}");
    return LockServerStubs.problemAnswer(status, body);
  }
}
