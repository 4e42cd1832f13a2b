package dev.fencepost.railstub;

import static dev.fencepost.railstub.StubHttp.payment;
import static dev.fencepost.testsupport.http.TestHttp.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencepost.testsupport.metrics.ScrapeCardinality;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * The stub as the outside world (FR-21): non-idempotent, and each fault mode does what it says
 * about the money and about what the caller sees.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    useMainMethod = SpringBootTest.UseMainMethod.ALWAYS,
    properties = {"fencepost.stub.hang=1500ms", "fencepost.stub.delay=50ms"})
@Tag("FR-21")
class RailStubBehaviourTest {

  private static final Duration CALLER_TIMEOUT = Duration.ofMillis(300);

  @LocalServerPort int port;
  @Autowired MeterRegistry meters;
  @Autowired PrometheusMeterRegistry prometheus;

  StubHttp stub;

  @DynamicPropertySource
  static void issuer(DynamicPropertyRegistry registry) {
    StubHttp.trustIssuer(registry);
  }

  @BeforeEach
  void freshRail() throws Exception {
    stub = StubHttp.ofEmptyRail(port);
  }

  @Test
  @Tag("NFR-09")
  void noMetricCarriesAClientReferenceOrARailReferenceAsATag() throws Exception {
    HttpResponse<String> moved =
        stub.post("/rail/payments", payment("cref-metrics"), CALLER_TIMEOUT);
    assertThat(moved.statusCode()).isEqualTo(201);

    ScrapeCardinality.assertBounded(prometheus.scrape(), List.of("cref-metrics"));
    assertThat(prometheus.scrape()).contains("fencepost_stub_payments_total");
  }

  @Test
  @Tag("A-07")
  void aRepeatedClientReferenceMovesMoneyAgain() throws Exception {
    HttpResponse<String> first = stub.post("/rail/payments", payment("cref-dup"), CALLER_TIMEOUT);
    HttpResponse<String> second = stub.post("/rail/payments", payment("cref-dup"), CALLER_TIMEOUT);

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(second.statusCode()).isEqualTo(201);
    assertThat(json(first).get("status").asString()).isEqualTo("SETTLED");
    assertThat(json(first).get("railReference").asString())
        .isNotEqualTo(json(second).get("railReference").asString());
    assertThat(stub.movementsFor("cref-dup")).isEqualTo(2);
  }

  @Test
  void declineAnswers422WithItsCodeAndMovesNothing() throws Exception {
    force("cref-decline", FaultMode.DECLINE);

    HttpResponse<String> response =
        stub.post("/rail/payments", payment("cref-decline"), CALLER_TIMEOUT);

    assertThat(response.statusCode()).isEqualTo(422);
    assertThat(json(response).get("status").asString()).isEqualTo("DECLINED");
    assertThat(json(response).get("code").asString()).isEqualTo("BENEFICIARY_ACCOUNT_CLOSED");
    assertThat(stub.movementsFor("cref-decline")).isZero();
  }

  @Test
  void delaySettlesLateButSettles() throws Exception {
    force("cref-delay", FaultMode.DELAY);

    HttpResponse<String> response =
        stub.post("/rail/payments", payment("cref-delay"), Duration.ofSeconds(10));

    assertThat(response.statusCode()).isEqualTo(201);
    assertThat(stub.movementsFor("cref-delay")).isEqualTo(1);
    assertThat(handled(FaultMode.DELAY)).isPositive();
  }

  @Test
  void timeoutBeforeSettleTimesTheCallerOutAndMovesNothing() throws Exception {
    force("cref-tbs", FaultMode.TIMEOUT_BEFORE_SETTLE);
    double before = handled(FaultMode.TIMEOUT_BEFORE_SETTLE);

    assertThatThrownBy(() -> stub.post("/rail/payments", payment("cref-tbs"), CALLER_TIMEOUT))
        .isInstanceOf(HttpTimeoutException.class);

    // Wait until the stub has finished holding the request, then check nothing moved.
    await().until(() -> handled(FaultMode.TIMEOUT_BEFORE_SETTLE) > before);
    assertThat(stub.movementsFor("cref-tbs")).isZero();
  }

  @Test
  void timeoutAfterSettleMovesMoneyWhileTheCallerTimesOut() throws Exception {
    force("cref-tas", FaultMode.TIMEOUT_AFTER_SETTLE);

    assertThatThrownBy(() -> stub.post("/rail/payments", payment("cref-tas"), CALLER_TIMEOUT))
        .isInstanceOf(HttpTimeoutException.class);

    assertThat(stub.movementsFor("cref-tas")).isEqualTo(1);
  }

  @Test
  void timeoutAfterSettleDropsTheConnectionOnceTheHangIsOver() throws Exception {
    force("cref-tas-drop", FaultMode.TIMEOUT_AFTER_SETTLE);

    // A caller more patient than the hang sees the connection end with no answer at all.
    assertThatThrownBy(
            () -> stub.post("/rail/payments", payment("cref-tas-drop"), Duration.ofSeconds(20)))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(HttpTimeoutException.class);
    assertThat(stub.movementsFor("cref-tas-drop")).isEqualTo(1);
  }

  @Test
  void errorAfterSettleAnswers500AndMovesMoney() throws Exception {
    force("cref-err", FaultMode.ERROR_AFTER_SETTLE);

    HttpResponse<String> response =
        stub.post("/rail/payments", payment("cref-err"), CALLER_TIMEOUT);

    assertThat(response.statusCode()).isEqualTo(500);
    assertThat(stub.movementsFor("cref-err")).isEqualTo(1);
  }

  @Test
  void resetDropsTheConnectionWithoutAnAnswerAndMovesNothing() throws Exception {
    force("cref-reset", FaultMode.RESET);

    assertThatThrownBy(
            () -> stub.post("/rail/payments", payment("cref-reset"), Duration.ofSeconds(10)))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(HttpTimeoutException.class);
    assertThat(stub.movementsFor("cref-reset")).isZero();
  }

  @Test
  void anOverrideBeatsTheRates() throws Exception {
    HttpResponse<String> plan =
        stub.put(
            "/rail/admin/faults",
            "{\"rates\":{\"DECLINE\":1.0},\"overrides\":{\"cref-lucky\":\"NONE\"}}");
    assertThat(plan.statusCode()).isEqualTo(200);

    assertThat(stub.post("/rail/payments", payment("cref-lucky"), CALLER_TIMEOUT).statusCode())
        .isEqualTo(201);
    assertThat(stub.post("/rail/payments", payment("cref-other"), CALLER_TIMEOUT).statusCode())
        .isEqualTo(422);
  }

  @Test
  @Tag("A-08")
  void theLookupShowsAMovementOnlyAfterTheLag() throws Exception {
    stub.put("/rail/admin/faults", "{\"lookupLagMillis\":3600000}");
    stub.post("/rail/payments", payment("cref-lagging"), CALLER_TIMEOUT);

    assertThat(json(stub.get("/rail/payments?clientReference=cref-lagging")).get("movements"))
        .isEmpty();
    assertThat(stub.movementsFor("cref-lagging")).isEqualTo(1);

    stub.put("/rail/admin/faults", "{\"lookupLagMillis\":200}");
    stub.post("/rail/payments", payment("cref-soon"), CALLER_TIMEOUT);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                json(stub.get("/rail/payments?clientReference=cref-soon")).get("movements").size()
                    == 1);
    JsonNode movement =
        json(stub.get("/rail/payments?clientReference=cref-soon")).get("movements").get(0);
    assertThat(movement.get("status").asString()).isEqualTo("SETTLED");
    assertThat(movement.get("amountMinor").asLong()).isEqualTo(1500);
  }

  @Test
  void anImpossibleFaultPlanIsRefusedAndTheOldOneStays() throws Exception {
    HttpResponse<String> tooMuch =
        stub.put("/rail/admin/faults", "{\"rates\":{\"DECLINE\":0.7,\"RESET\":0.7}}");
    HttpResponse<String> unknownMode =
        stub.put("/rail/admin/faults", "{\"rates\":{\"EXPLODE\":0.1}}");

    assertThat(tooMuch.statusCode()).isEqualTo(400);
    assertThat(json(tooMuch).get("code").asString()).isEqualTo("INVALID_FAULT_PLAN");
    assertThat(unknownMode.statusCode()).isEqualTo(400);
    assertThat(tooMuch.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(json(stub.get("/rail/admin/faults")).get("rates")).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{",
        "[]",
        "{}",
        "{\"clientReference\":\"c1\",\"amountMinor\":0,\"currency\":\"EUR\",\"beneficiaryRef\":\"b\"}",
        "{\"clientReference\":\"c1\",\"amountMinor\":\"5\",\"currency\":\"EUR\",\"beneficiaryRef\":\"b\"}",
        "{\"clientReference\":\"c1\",\"amountMinor\":1.5,\"currency\":\"EUR\",\"beneficiaryRef\":\"b\"}",
        "{\"clientReference\":\"\",\"amountMinor\":5,\"currency\":\"EUR\",\"beneficiaryRef\":\"b\"}",
        "{\"clientReference\":\"c1\",\"amountMinor\":5,\"currency\":\"euro\",\"beneficiaryRef\":\"b\"}"
      })
  void aMalformedPaymentIsA400AndMovesNothing(String body) throws Exception {
    HttpResponse<String> response = stub.post("/rail/payments", body, Duration.ofSeconds(5));

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(json(response).get("code").asString()).isNotBlank();
    assertThat(json(stub.get("/rail/admin/movements")).get("count").asInt()).isZero();
  }

  private void force(String clientReference, FaultMode mode) throws Exception {
    HttpResponse<String> response =
        stub.put(
            "/rail/admin/faults",
            "{\"overrides\":{\"" + clientReference + "\":\"" + mode.name() + "\"}}");
    assertThat(response.statusCode()).isEqualTo(200);
  }

  private double handled(FaultMode mode) {
    var counter = meters.find("fencepost.stub.payments").tag("mode", mode.name()).counter();
    return counter == null ? 0 : counter.count();
  }
}
