package dev.fencepost.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.launcher.LocalIdentity;
import dev.fencepost.security.FencepostRole;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * Findings with owners (ADR 0179), through the application's operator endpoint {@code
 * /actuator/findings}: a finding is OPEN when first found; an operator acknowledges it and resolves
 * it with a reason, each recorded with the token's subject, when and why; a resolved finding that
 * recurs is REOPENED by the reconciler; an illegal transition is 409 ILLEGAL_TRANSITION, bad input
 * 400 and an unknown finding 404, each problem+json, and none changes anything; only an operator is
 * served.
 */
@Tag("UC-07")
@Tag("FR-30")
class FindingsLifecycleTest extends ReconciliationTestBase {

  static final String OPERATOR = LocalIdentity.clientId(FencepostRole.OPERATOR);

  /** The application's own reconciler, over the application's paydb. */
  @Autowired Reconciler reconciler;

  @Test
  void aFindingIsAcknowledgedResolvedAndReopenedWhenItRecursWithAnAuditTrail() {
    Instant from = Instant.now().minusSeconds(1);
    String reference = "fp-" + UUID.randomUUID().toString().replace("-", "");
    railPost(reference);
    ReconciliationWindow window = new ReconciliationWindow(from, Instant.now().plusSeconds(1));
    reconciler.run(window, "test");
    long id = issueOf(reference);
    String finding = management("/actuator/findings/" + id);

    JsonNode open = json(World.send("GET", finding, null));
    assertThat(open.path("status").asString()).isEqualTo("OPEN");
    assertThat(open.path("discrepancy").asString()).isEqualTo("MOVEMENT_WITHOUT_PAYOUT");
    assertThat(
            json(World.send("GET", management("/actuator/findings?status=OPEN&limit=500"), null))
                .path("items")
                .toString())
        .contains(reference);

    HttpResponse<String> acknowledged =
        World.send("POST", finding + "/acknowledge", "{\"reason\":\"looking at it\"}");
    assertThat(acknowledged.statusCode()).as(acknowledged.body()).isEqualTo(200);
    assertThat(json(acknowledged).path("status").asString()).isEqualTo("ACKNOWLEDGED");

    HttpResponse<String> again = World.send("POST", finding + "/acknowledge", "{}");
    assertProblem(again, 409, "ILLEGAL_TRANSITION");

    assertProblem(World.send("POST", finding + "/resolve", "{}"), 400, "INVALID_REQUEST");
    HttpResponse<String> resolved =
        World.send("POST", finding + "/resolve", "{\"reason\":\"test movement, refunded\"}");
    assertThat(resolved.statusCode()).as(resolved.body()).isEqualTo(200);
    assertThat(json(resolved).path("status").asString()).isEqualTo("RESOLVED");
    assertProblem(
        World.send("POST", finding + "/resolve", "{\"reason\":\"twice\"}"),
        409,
        "ILLEGAL_TRANSITION");

    // The same movement is found again: the reconciler reopens it, once.
    reconciler.run(window, "test");
    JsonNode reopened = json(World.send("GET", finding, null));
    assertThat(reopened.path("status").asString()).isEqualTo("REOPENED");
    assertThat(reopened.path("timesFound").asLong()).isEqualTo(2);
    assertThat(issuesOf(reference)).isEqualTo(1);

    List<String> trail = new ArrayList<>();
    for (JsonNode e : reopened.path("trail")) {
      trail.add(
          e.path("fromStatus").asString("")
              + ">"
              + e.path("toStatus").asString()
              + " "
              + e.path("actorRole").asString()
              + ":"
              + e.path("actor").asString()
              + " "
              + e.path("reason").asString(""));
    }
    assertThat(trail)
        .hasSize(4)
        .satisfies(
            t -> {
              assertThat(t.get(0)).startsWith(">OPEN RECONCILER:");
              assertThat(t.get(1))
                  .isEqualTo("OPEN>ACKNOWLEDGED OPERATOR:" + OPERATOR + " looking at it");
              assertThat(t.get(2))
                  .isEqualTo(
                      "ACKNOWLEDGED>RESOLVED OPERATOR:" + OPERATOR + " test movement, refunded");
              assertThat(t.get(3)).startsWith("RESOLVED>REOPENED RECONCILER:");
            });
    assertThat(events.named("reconciliation.issue.reopened")).hasSize(1);
  }

  @Test
  void badInputIs4xxProblemJsonAndOnlyAnOperatorIsServed() {
    String reference = "fp-" + UUID.randomUUID().toString().replace("-", "");
    Instant from = Instant.now().minusSeconds(1);
    railPost(reference);
    reconciler.run(new ReconciliationWindow(from, Instant.now().plusSeconds(1)), "test");
    long id = issueOf(reference);
    String finding = management("/actuator/findings/" + id);

    assertProblem(
        World.send("GET", management("/actuator/findings/abc"), null), 400, "INVALID_REQUEST");
    assertProblem(
        World.send("GET", management("/actuator/findings/999999999"), null),
        404,
        "FINDING_NOT_FOUND");
    assertProblem(
        World.send("GET", management("/actuator/findings?status=DONE"), null),
        400,
        "INVALID_REQUEST");
    assertProblem(
        World.send("GET", management("/actuator/findings?limit=501"), null),
        400,
        "INVALID_REQUEST");
    assertProblem(World.send("POST", finding + "/close", "{}"), 400, "INVALID_REQUEST");
    assertProblem(
        World.send("POST", finding + "/resolve", "{\"reason\":\"line\\nbreak\"}"),
        400,
        "INVALID_REQUEST");
    assertProblem(
        World.send("POST", finding + "/acknowledge", "{\"operator\":\"mallory\"}"),
        400,
        "INVALID_REQUEST");
    assertProblem(
        World.send("POST", management("/actuator/findings/999999999/acknowledge"), "{}"),
        404,
        "FINDING_NOT_FOUND");

    List<Integer> refusals = new ArrayList<>();
    refusals.add(World.send("POST", finding + "/acknowledge", "{}", null).statusCode());
    for (FencepostRole role : EnumSet.complementOf(EnumSet.of(FencepostRole.OPERATOR))) {
      refusals.add(
          World.send("POST", finding + "/acknowledge", "{}", STACK.tokens(role)).statusCode());
    }
    assertThat(refusals).containsExactly(401, 403, 403, 403);
    assertThat(json(World.send("GET", finding, null)).path("status").asString()).isEqualTo("OPEN");
    assertThat(json(World.send("GET", finding, null)).path("trail").size()).isEqualTo(1);
  }

  private static void assertProblem(HttpResponse<String> r, int status, String code) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(json(r).path("code").asString()).isEqualTo(code);
  }

  private static JsonNode json(HttpResponse<String> r) {
    return World.JSON.readTree(r.body());
  }

  private static long issueOf(String subject) {
    return ReconciliationJobTest.JdbcRuns.of(STACK)
        .sql("SELECT id FROM reconciliation_issue WHERE subject = :s")
        .param("s", subject)
        .query(Long.class)
        .single();
  }

  private static long issuesOf(String subject) {
    return ReconciliationJobTest.JdbcRuns.of(STACK)
        .sql("SELECT count(*) FROM reconciliation_issue WHERE subject = :s")
        .param("s", subject)
        .query(Long.class)
        .single();
  }

  private void railPost(String clientReference) {
    String body =
        World.JSON.writeValueAsString(
            Map.of(
                "clientReference",
                clientReference,
                "amountMinor",
                1_234,
                "currency",
                "EUR",
                "beneficiaryRef",
                "ben-nobody"));
    assertThat(World.send("POST", world.stack.stubUrl() + "/rail/payments", body).statusCode())
        .isEqualTo(201);
  }
}
