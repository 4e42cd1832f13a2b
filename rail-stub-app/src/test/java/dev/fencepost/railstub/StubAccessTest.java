package dev.fencepost.railstub;

import static dev.fencepost.railstub.StubHttp.payment;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.security.AccessMatrix;
import dev.fencepost.testsupport.security.AccessMatrix.Endpoint;
import dev.fencepost.testsupport.security.TestIssuer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Who may call the stub (ADR 0146): payments and lookups only the rail proxy, the movement ledger
 * (the rail's statement) an operator and the reconciler, fault steering only an operator. Each
 * endpoint against no credentials (401), every other role (403) and its own (the normal answer);
 * and the refused calls move no money and change no fault plan.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    useMainMethod = SpringBootTest.UseMainMethod.ALWAYS)
class StubAccessTest {

  /** An issuer with its own key, which the stub does not trust: its tokens are 401. */
  static final TestIssuer STRANGER = TestIssuer.start();

  @LocalServerPort int port;

  @AfterAll
  static void stopStranger() {
    STRANGER.close();
  }

  @DynamicPropertySource
  static void issuer(DynamicPropertyRegistry registry) {
    StubHttp.trustIssuer(registry);
  }

  static final List<Endpoint<StubHttp>> ENDPOINTS =
      List.of(
          new Endpoint<>(
              "POST /rail/payments",
              EnumSet.of(FencepostRole.RAIL_PROXY),
              stub -> stub.post("/rail/payments", payment("cref-attack"), Duration.ofSeconds(5))),
          new Endpoint<>(
              "GET /rail/payments",
              EnumSet.of(FencepostRole.RAIL_PROXY),
              stub -> stub.get("/rail/payments?clientReference=cref-attack")),
          new Endpoint<>(
              "GET /rail/admin/movements",
              EnumSet.of(FencepostRole.OPERATOR, FencepostRole.RECONCILER),
              stub -> stub.get("/rail/admin/movements")),
          new Endpoint<>(
              "GET /rail/admin/faults",
              EnumSet.of(FencepostRole.OPERATOR),
              stub -> stub.get("/rail/admin/faults")),
          new Endpoint<>(
              "PUT /rail/admin/faults",
              EnumSet.of(FencepostRole.OPERATOR),
              stub -> stub.put("/rail/admin/faults", "{\"lookupLagMillis\":3600000}")),
          new Endpoint<>(
              "DELETE /rail/admin/faults",
              EnumSet.of(FencepostRole.OPERATOR),
              stub -> stub.delete("/rail/admin/faults")),
          new Endpoint<>(
              "DELETE /rail/admin/movements",
              EnumSet.of(FencepostRole.OPERATOR),
              stub -> stub.delete("/rail/admin/movements")));

  StubHttp operator;

  @BeforeEach
  void freshRail() throws Exception {
    operator = new StubHttp(port);
    operator.delete("/rail/admin/movements");
    operator.delete("/rail/admin/faults");
  }

  @Test
  void eachEndpointAnswersOnlyItsRole() throws Exception {
    List<String> violations =
        AccessMatrix.violations(
            ENDPOINTS, () -> StubHttp.anonymous(port), role -> StubHttp.as(port, role));
    assertThat(violations).isEmpty();
  }

  @Test
  void refusedPaymentsMoveNoMoneyAndRefusedAdminCallsChangeNothing() throws Exception {
    String faultsBefore = operator.get("/rail/admin/faults").body();
    List<StubHttp> refused = new ArrayList<>();
    refused.add(StubHttp.anonymous(port));
    refused.add(new StubHttp(port, path -> STRANGER.token("rail-proxy", FencepostRole.RAIL_PROXY)));
    Set<FencepostRole> others = EnumSet.complementOf(EnumSet.of(FencepostRole.RAIL_PROXY));
    others.forEach(role -> refused.add(StubHttp.as(port, role)));
    StubHttp.as(port, FencepostRole.RAIL_PROXY)
        .post("/rail/payments", payment("cref-seen"), Duration.ofSeconds(5));

    for (StubHttp caller : refused) {
      assertThat(
              caller
                  .post("/rail/payments", payment("cref-refused"), Duration.ofSeconds(5))
                  .statusCode())
          .isIn(401, 403);
    }
    for (StubHttp caller :
        List.of(StubHttp.anonymous(port), StubHttp.as(port, FencepostRole.RAIL_PROXY))) {
      assertThat(caller.put("/rail/admin/faults", "{\"lookupLagMillis\":3600000}").statusCode())
          .isIn(401, 403);
      assertThat(caller.delete("/rail/admin/movements").statusCode()).isIn(401, 403);
    }

    assertThat(operator.movementsFor("cref-refused")).isZero();
    assertThat(operator.movementsFor("cref-seen")).as("the proxy's one payment stays").isEqualTo(1);
    assertThat(operator.get("/rail/admin/faults").body()).isEqualTo(faultsBefore);
  }
}
