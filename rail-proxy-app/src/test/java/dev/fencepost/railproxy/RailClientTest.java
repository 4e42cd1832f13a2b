package dev.fencepost.railproxy;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.http.Fault;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.json.JsonMapper;

/**
 * A submit is one exchange with the rail, whatever happens to it (ADR 0042, UC-05): the client
 * stack (ADR 0197) never re-sends it, not after the connection was reset once the rail had read it,
 * not after a 503, not after the budget ran out while the answer trickled in; each of these is an
 * ambiguous outcome (TIMEOUT), left to reconciliation.
 */
@Tag("FR-20")
class RailClientTest {

  private final WireMockServer rail = new WireMockServer(wireMockConfig().dynamicPort());
  private RailClient client;

  @BeforeEach
  void start() {
    rail.start();
    // Generous: a cold JVM's first request may take most of a second on a busy machine.
    client = client(Duration.ofSeconds(5));
  }

  private RailClient client(Duration timeout) {
    return new RailClient(
        new RailProperties(URI.create(rail.baseUrl()), Duration.ofSeconds(2), timeout, timeout),
        JsonMapper.builder().build(),
        () -> "rail-token");
  }

  @AfterEach
  void stop() {
    client.close();
    rail.stop();
    System.clearProperty("jdk.httpclient.enableAllMethodRetry");
  }

  private RailOutcome submit() {
    return submit(client);
  }

  private static RailOutcome submit(RailClient client) {
    return client.submit(
        new SubmissionRequest("p-1", "acc-1", 7, "ref-1", 1250, "EUR", "beneficiary-1", "grant"),
        client.credential());
  }

  @ParameterizedTest
  @EnumSource(
      value = Fault.class,
      names = {"CONNECTION_RESET_BY_PEER", "EMPTY_RESPONSE", "RANDOM_DATA_THEN_CLOSE"})
  void aSubmitWithoutAnAnswerAfterTheRailReadItIsAmbiguousAndWasSentOnce(Fault fault) {
    // The JDK client's switch to re-send any method no longer matters: that client is gone.
    System.setProperty("jdk.httpclient.enableAllMethodRetry", "true");
    rail.stubFor(post("/rail/payments").willReturn(aResponse().withFault(fault)));

    RailOutcome outcome = submit();

    assertThat(outcome.outcome()).isEqualTo(Outcome.TIMEOUT);
    assertThat(outcome.detail()).startsWith("connection failure");
    rail.verify(1, postRequestedFor(urlEqualTo("/rail/payments")));
  }

  @Test
  void aSubmitAnswered503WithRetryAfterIsAmbiguousAndWasSentOnce() {
    rail.stubFor(
        post("/rail/payments")
            .willReturn(aResponse().withStatus(503).withHeader("Retry-After", "0")));

    assertThat(submit().outcome()).isEqualTo(Outcome.TIMEOUT);
    rail.verify(1, postRequestedFor(urlEqualTo("/rail/payments")));
  }

  @Test
  void anAnswerStillTricklingInAtTheBudgetIsATimeoutAndWasSentOnce() {
    rail.stubFor(
        post("/rail/payments")
            .willReturn(
                aResponse()
                    .withStatus(201)
                    .withBody("{\"railReference\":\"" + "r".repeat(100) + "\"}")
                    .withChunkedDribbleDelay(20, 4000)));

    RailOutcome outcome;
    try (RailClient impatient = client(Duration.ofMillis(800))) {
      outcome = submit(impatient);
    }

    assertThat(outcome.outcome()).isEqualTo(Outcome.TIMEOUT);
    assertThat(outcome.detail()).isEqualTo("timeout after 800 ms");
    rail.verify(1, postRequestedFor(urlEqualTo("/rail/payments")));
  }

  @Test
  void anAcknowledgementCarriesTheReferenceAndTheSubmitCarriesTheToken() {
    rail.stubFor(
        post("/rail/payments")
            .willReturn(
                aResponse()
                    .withStatus(201)
                    .withHeader("Content-Type", "application/json")
                    .withBody("{\"railReference\":\"R-1\",\"status\":\"SETTLED\"}")));

    RailOutcome outcome = submit();

    assertThat(outcome.outcome()).isEqualTo(Outcome.ACKED);
    assertThat(outcome.railReference()).isEqualTo("R-1");
    rail.verify(
        1,
        postRequestedFor(urlEqualTo("/rail/payments"))
            .withHeader("Authorization", equalTo("Bearer rail-token"))
            .withHeader("Content-Type", equalTo("application/json")));
  }
}
