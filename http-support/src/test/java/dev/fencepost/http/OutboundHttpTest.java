package dev.fencepost.http;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.absent;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.http.Fault;
import java.net.SocketTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;

/**
 * The one outbound client stack (ADR 0197) against a real HTTP server: a request is sent once
 * whatever happens to it (ADR 0042, UC-05), redirects are not followed, nothing is compressed, the
 * bearer token goes on every request, and the response timeout bounds the whole exchange.
 */
class OutboundHttpTest {

  private static final ClientHttpRequestInterceptor BEARER =
      (request, body, execution) -> {
        request.getHeaders().setBearerAuth("token-1");
        return execution.execute(request, body);
      };

  private final WireMockServer server = new WireMockServer(wireMockConfig().dynamicPort());
  private OutboundHttp http;
  private RestClient client;
  private RestClient impatient;

  @BeforeEach
  void start() {
    server.start();
    http =
        OutboundHttp.builder()
            .connectTimeout(Duration.ofSeconds(2))
            .responseTimeout(Duration.ofSeconds(5))
            .build();
    client = http.restClient(server.baseUrl(), BEARER).build();
    // A short budget only where the budget is what a test is about: a cold JVM's first request
    // may take most of a second on a busy machine.
    impatient =
        http.restClient(server.baseUrl(), BEARER)
            .requestFactory(http.requestFactory(Duration.ofMillis(800)))
            .build();
  }

  @AfterEach
  void stop() {
    http.close();
    server.stop();
  }

  private ResponseEntity<String> submit() {
    return submit(client);
  }

  private ResponseEntity<String> submit(RestClient client) {
    return client
        .post()
        .uri("/pay")
        .contentType(MediaType.APPLICATION_JSON)
        .body("{\"amountMinor\":100}")
        .retrieve()
        .onStatus(s -> true, (request, response) -> {})
        .toEntity(String.class);
  }

  /** Every fault that leaves the client without an answer after the request was read. */
  @ParameterizedTest
  @EnumSource(
      value = Fault.class,
      names = {"CONNECTION_RESET_BY_PEER", "EMPTY_RESPONSE", "RANDOM_DATA_THEN_CLOSE"})
  void aPostThatMayHaveReachedTheServerIsNeverResent(Fault fault) {
    server.stubFor(post("/pay").willReturn(aResponse().withFault(fault)));

    assertThatThrownBy(this::submit).isInstanceOf(RestClientException.class);

    server.verify(1, postRequestedFor(urlEqualTo("/pay")));
  }

  @Test
  void exchangeReadsAnAnswerOfAnyStatusWholeAndSendsOnce() throws Exception {
    server.stubFor(
        post("/pay").willReturn(aResponse().withStatus(422).withBody("{\"code\":\"X\"}")));

    OutboundHttp.Answer answer =
        OutboundHttp.exchange(
            client.post().uri("/pay").contentType(MediaType.APPLICATION_JSON).body("{}"));

    assertThat(answer.statusCode()).isEqualTo(422);
    assertThat(answer.body()).isEqualTo("{\"code\":\"X\"}");
    server.verify(1, postRequestedFor(urlEqualTo("/pay")));
  }

  @Test
  void exchangeThrowsTheTransportFailureAsAnIOExceptionAndSendsOnce() {
    server.stubFor(post("/pay").willReturn(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER)));

    assertThatThrownBy(
            () ->
                OutboundHttp.exchange(
                    client.post().uri("/pay").contentType(MediaType.APPLICATION_JSON).body("{}")))
        .isInstanceOf(java.io.IOException.class);
    server.verify(1, postRequestedFor(urlEqualTo("/pay")));
  }

  @Test
  void aGetWithoutAnAnswerIsNotResentEither() {
    // HttpClient 5's default strategy would re-send an idempotent request after this.
    server.stubFor(get("/record").willReturn(aResponse().withFault(Fault.EMPTY_RESPONSE)));

    assertThatThrownBy(() -> client.get().uri("/record").retrieve().toEntity(String.class))
        .isInstanceOf(RestClientException.class);

    server.verify(1, getRequestedFor(urlEqualTo("/record")));
  }

  @Test
  void aPostAnswered503WithRetryAfterComesBackAsItIsAndIsNotResent() {
    // HttpClient 5's default strategy re-sends any request, a POST included, answered 429 or 503.
    server.stubFor(
        post("/pay")
            .willReturn(
                aResponse()
                    .withStatus(503)
                    .withHeader("Retry-After", "0")
                    .withBody("{\"code\":\"OUTCOME_NOT_RECORDED\"}")));

    ResponseEntity<String> answer = submit();

    assertThat(answer.getStatusCode().value()).isEqualTo(503);
    assertThat(answer.getBody()).contains("OUTCOME_NOT_RECORDED");
    server.verify(1, postRequestedFor(urlEqualTo("/pay")));
  }

  @Test
  void aPostAnswered429IsNotResent() {
    server.stubFor(post("/pay").willReturn(aResponse().withStatus(429)));

    assertThat(submit().getStatusCode().value()).isEqualTo(429);
    server.verify(1, postRequestedFor(urlEqualTo("/pay")));
  }

  @Test
  void aRedirectIsReturnedNotFollowed() {
    server.stubFor(
        post("/pay").willReturn(aResponse().withStatus(307).withHeader("Location", "/elsewhere")));

    assertThat(submit().getStatusCode().value()).isEqualTo(307);
    server.verify(0, postRequestedFor(urlEqualTo("/elsewhere")));
  }

  @Test
  void everyRequestCarriesTheBearerTokenAndAsksForNoCompression() {
    server.stubFor(post("/pay").willReturn(aResponse().withStatus(201).withBody("{}")));

    submit();

    server.verify(
        postRequestedFor(urlEqualTo("/pay"))
            .withHeader("Authorization", equalTo("Bearer token-1"))
            .withHeader("Accept-Encoding", absent())
            .withHeader("Content-Length", equalTo("19")));
  }

  @Test
  void anAnswerSlowerThanTheResponseTimeoutIsATimeout() {
    server.stubFor(post("/pay").willReturn(aResponse().withStatus(201).withFixedDelay(3000)));

    // The socket's read timeout or the watchdog, whichever comes first: a timeout either way.
    Throwable failure = catchThrowable(() -> submit(impatient));
    assertThat(chain(failure)).anyMatch(SocketTimeoutException.class::isInstance);
    server.verify(1, postRequestedFor(urlEqualTo("/pay")));
  }

  @Test
  void aBodyTricklingInPastTheResponseTimeoutIsCutOffNearIt() {
    // Each chunk comes well within a socket read timeout; only a whole-exchange bound stops this.
    server.stubFor(
        post("/pay")
            .willReturn(
                aResponse()
                    .withStatus(201)
                    .withBody("{\"railReference\":\"" + "r".repeat(200) + "\"}")
                    .withChunkedDribbleDelay(20, 4000)));

    long began = System.nanoTime();
    Throwable failure = catchThrowable(() -> submit(impatient));
    Duration took = Duration.ofNanos(System.nanoTime() - began);

    assertThat(failure).isInstanceOf(RestClientException.class);
    assertThat(chain(failure)).anyMatch(SocketTimeoutException.class::isInstance);
    assertThat(took).isLessThan(Duration.ofMillis(2500));
    server.verify(1, postRequestedFor(urlEqualTo("/pay")));
  }

  @Test
  void aLongerBudgetFromTheSameInstanceLetsASlowAnswerThrough() {
    server.stubFor(
        post("/wait").willReturn(aResponse().withStatus(200).withBody("ok").withFixedDelay(1200)));
    RestClient patient =
        RestClient.builder()
            .baseUrl(server.baseUrl())
            .requestFactory(http.requestFactory(Duration.ofMillis(2500)))
            .build();

    assertThat(patient.post().uri("/wait").retrieve().body(String.class)).isEqualTo("ok");
    assertThatThrownBy(() -> impatient.post().uri("/wait").retrieve().body(String.class))
        .isInstanceOf(RestClientException.class);
  }

  @Test
  void keptAliveConnectionsCarryConsecutiveRequests() {
    server.stubFor(get("/record").willReturn(aResponse().withStatus(200).withBody("{}")));

    for (int i = 0; i < 5; i++) {
      client.get().uri("/record").retrieve().toEntity(String.class);
    }

    assertThat(http.connections().getTotalStats().getAvailable()).isEqualTo(1);
    assertThat(http.connections().getTotalStats().getLeased()).isZero();
  }

  @Test
  void anIdleConnectionIsKeptForIdleForAndNoLonger() {
    // A lock client keeps its connection past one heartbeat this way (ADR 0225). The pool closes
    // an expired connection only when asked, so each check asks it first.
    server.stubFor(get("/record").willReturn(aResponse().withStatus(200).withBody("{}")));
    try (OutboundHttp kept =
        OutboundHttp.builder()
            .connectTimeout(Duration.ofSeconds(2))
            .responseTimeout(Duration.ofSeconds(5))
            .idleFor(Duration.ofSeconds(3))
            .build()) {
      kept.restClient(server.baseUrl(), BEARER)
          .build()
          .get()
          .uri("/record")
          .retrieve()
          .toEntity(String.class);

      assertThat(kept.idleFor()).isEqualTo(Duration.ofSeconds(3));
      await()
          .during(Duration.ofMillis(1_500))
          .atMost(Duration.ofMillis(2_500))
          .until(() -> pooledAfterClosingExpired(kept) == 1);
      await().atMost(Duration.ofSeconds(10)).until(() -> pooledAfterClosingExpired(kept) == 0);
    }
  }

  private static int pooledAfterClosingExpired(OutboundHttp http) {
    http.connections().closeExpired();
    return http.connections().getTotalStats().getAvailable();
  }

  private static java.util.List<Throwable> chain(Throwable e) {
    java.util.List<Throwable> all = new java.util.ArrayList<>();
    for (Throwable t = e; t != null && !all.contains(t); t = t.getCause()) {
      all.add(t);
    }
    return all;
  }
}
