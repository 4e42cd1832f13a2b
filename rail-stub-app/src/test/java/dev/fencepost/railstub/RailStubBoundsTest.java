package dev.fencepost.railstub;

import static dev.fencepost.railstub.StubHttp.payment;
import static dev.fencepost.testsupport.http.TestHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The stub's bounds: its in-memory books stop at {@code fencepost.stub.max-movements} with a clear
 * 503 instead of filling the heap, its bodies are bounded like every application's, and free text
 * with a control character is refused.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    useMainMethod = SpringBootTest.UseMainMethod.ALWAYS,
    properties = {"fencepost.stub.max-movements=3"})
class RailStubBoundsTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  @LocalServerPort int port;

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
  void aPaymentBeyondTheMaximumOfMovementsIs503RailBookFullAndMovesNothing() throws Exception {
    for (int i = 1; i <= 3; i++) {
      assertThat(stub.post("/rail/payments", payment("cref-" + i), TIMEOUT).statusCode())
          .isEqualTo(201);
    }

    HttpResponse<String> refused = stub.post("/rail/payments", payment("cref-1"), TIMEOUT);

    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
    assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(json(refused).get("code").asString()).isEqualTo("RAIL_BOOK_FULL");
    assertThat(json(stub.get("/rail/admin/movements")).get("count").asInt()).isEqualTo(3);
    // Emptying the books makes room again.
    stub.delete("/rail/admin/movements");
    assertThat(stub.post("/rail/payments", payment("cref-4"), TIMEOUT).statusCode()).isEqualTo(201);
  }

  @Test
  void attemptCountsOfNewReferencesStopAtTheMaximumToo() throws Exception {
    // Declines move nothing but are counted per client reference.
    assertThat(stub.put("/rail/admin/faults", "{\"rates\":{\"DECLINE\":1.0}}").statusCode())
        .isEqualTo(200);
    for (int i = 1; i <= 3; i++) {
      assertThat(stub.post("/rail/payments", payment("declined-" + i), TIMEOUT).statusCode())
          .isEqualTo(422);
    }

    HttpResponse<String> refused = stub.post("/rail/payments", payment("declined-4"), TIMEOUT);

    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
    assertThat(json(refused).get("code").asString()).isEqualTo("RAIL_BOOK_FULL");
    // A reference already counted is still decided.
    assertThat(stub.post("/rail/payments", payment("declined-1"), TIMEOUT).statusCode())
        .isEqualTo(422);
  }

  @Test
  void anAdminBodyOverTheLimitIs413AndChangesNoFaultPlan() throws Exception {
    String overrides = "\"x\":\"DECLINE\",".repeat(2000);
    HttpResponse<String> refused =
        stub.put("/rail/admin/faults", "{\"overrides\":{" + overrides + "\"cref-1\":\"DECLINE\"}}");

    assertThat(refused.statusCode()).isEqualTo(413);
    assertThat(json(refused).get("code").asString()).isEqualTo("PAYLOAD_TOO_LARGE");
    assertThat(json(stub.get("/rail/admin/faults")).get("overrides")).isEmpty();
  }

  @Test
  void aFaultOverrideWithAControlCharacterIs400AndChangesNoFaultPlan() throws Exception {
    HttpResponse<String> refused =
        stub.put("/rail/admin/faults", "{\"overrides\":{\"cref\\u0000\":\"DECLINE\"}}");

    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
    assertThat(json(refused).get("field").asString()).isEqualTo("overrides");
    assertThat(json(stub.get("/rail/admin/faults")).get("overrides")).isEmpty();
  }
}
