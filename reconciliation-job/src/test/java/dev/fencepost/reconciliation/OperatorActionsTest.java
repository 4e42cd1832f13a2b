package dev.fencepost.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payment.testkit.PaydbFixtures;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Operator actions (the payout state machine, docs/payment-resource.md, UC-05 step 6, FR-30, ADR
 * 0037): cancel PENDING and abandon RAIL_AMBIGUOUS past the SLA, each with identity and reason,
 * under the account's lock, audited; everything else is refused and changes nothing. Through the
 * class and through the actuator endpoint an operator uses.
 */
@Tag("FR-30")
@Tag("UC-05")
@Tag("NFR-13")
class OperatorActionsTest extends ReconciliationTestBase {

  @Test
  void anOperatorCancelsAPendingPayoutWithIdentityAndReasonUnderTheAccountLock() {
    Payout payout = world.pending();

    Payout cancelled =
        world
            .operatorActions(world.settings())
            .cancel(payout.id().toString(), "alice", "beneficiary asked to stop");

    assertThat(cancelled.state()).isEqualTo(PayoutState.ABANDONED);
    assertThat(cancelled.failureReason()).contains("alice").contains("beneficiary asked to stop");
    assertThat(cancelled.tokenStamp()).isNotNull();
    assertThat(operatorAudit(payout)).isEqualTo(1L);
    assertThat(events.named("reconciliation.operator_action"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.get("result")).isEqualTo("accepted");
              assertThat(e.get("operator")).isEqualTo("alice");
              assertThat(e.get("token")).isEqualTo(cancelled.tokenStamp());
            });
  }

  @Test
  void anAmbiguousPayoutMayBeAbandonedOnlyOnceTheResolutionSlaHasPassed() {
    Payout payout = world.pending();
    world.faults(Map.of(payout.clientReference(), "TIMEOUT_BEFORE_SETTLE"), Duration.ZERO);
    world.execute(payout, World.Until.POSTED);
    OperatorActions operator = world.operatorActions(world.settings());
    StoreSnapshot before = StoreSnapshot.of(world);

    assertThatThrownBy(() -> operator.abandon(payout.id().toString(), "bob", "finance ticket 7"))
        .isInstanceOfSatisfying(
            OperatorActionRefusedException.class,
            e -> assertThat(e.code()).isEqualTo("WITHIN_SLA"));
    assertThat(StoreSnapshot.of(world)).isEqualTo(before);

    // Four hours cannot pass in a test: age the payout by SQL (no API moves a timestamp back).
    world
        .sql
        .sql("UPDATE payout SET submitted_at = submitted_at - interval '5 hours' WHERE id = :id")
        .param("id", payout.id().value())
        .update();
    Payout abandoned = operator.abandon(payout.id().toString(), "bob", "finance ticket 7");

    assertThat(abandoned.state()).isEqualTo(PayoutState.ABANDONED);
    assertThat(abandoned.failureReason()).contains("bob").contains("finance ticket 7");
    assertThat(operatorAudit(payout)).isEqualTo(1L);
    assertThat(world.movementCount(payout.clientReference())).isZero();
  }

  @Test
  void anOperatorIdentityAndANonBlankReasonAreRequired() {
    Payout payout = world.pending();
    OperatorActions operator = world.operatorActions(world.settings());
    StoreSnapshot before = StoreSnapshot.of(world);
    String id = payout.id().toString();

    for (String[] bad :
        new String[][] {{null, "reason"}, {" ", "reason"}, {"alice", null}, {"alice", "  "}}) {
      assertThatThrownBy(() -> operator.cancel(id, bad[0], bad[1]))
          .isInstanceOfSatisfying(
              OperatorActionRefusedException.class,
              e -> assertThat(e.code()).isEqualTo("INVALID_REQUEST"));
    }
    assertThatThrownBy(() -> operator.cancel("not-a-payout", "alice", "reason"))
        .isInstanceOfSatisfying(
            OperatorActionRefusedException.class,
            e -> assertThat(e.code()).isEqualTo("INVALID_REQUEST"));
    assertThat(StoreSnapshot.of(world)).isEqualTo(before);
    assertThat(events.named("reconciliation.operator_action"))
        .hasSize(5)
        .allSatisfy(e -> assertThat(e.get("result")).isEqualTo("INVALID_REQUEST"));
  }

  @Test
  void everyOtherTransitionIsRefusedAndChangesNothing() {
    Payout posted = world.execute(world.pending(), World.Until.POSTED);
    Payout acked = world.execute(world.pending(), World.Until.ACKED_NOT_POSTED);
    Payout declined = world.pending();
    Payout ambiguous = world.pending();
    world.faults(
        Map.of(
            declined.clientReference(),
            "DECLINE",
            ambiguous.clientReference(),
            "TIMEOUT_BEFORE_SETTLE"),
        Duration.ZERO);
    world.execute(declined, World.Until.POSTED);
    world.execute(ambiguous, World.Until.POSTED);
    Payout pending = world.pending();
    OperatorActions operator = world.operatorActions(world.settings());
    StoreSnapshot before = StoreSnapshot.of(world);

    for (Payout p : new Payout[] {posted, acked, declined, ambiguous}) {
      assertRefused(() -> operator.cancel(p.id().toString(), "carol", "tidy up"));
    }
    for (Payout p : new Payout[] {posted, acked, declined, pending}) {
      assertRefused(() -> operator.abandon(p.id().toString(), "carol", "tidy up"));
    }

    assertThat(StoreSnapshot.of(world)).isEqualTo(before);
  }

  @Test
  void theActuatorEndpointIsWhereAnOperatorActs() {
    PaydbFixtures fixtures = new PaydbFixtures(STACK.appPaydb.dataSource(), "operator-test");
    AccountId account =
        AccountId.of("acc-ops-" + ProcessHandle.current().pid() + "-" + System.nanoTime() % 100000);
    fixtures.createAccount(account, 50_000);
    Payout payout = fixtures.createPendingPayout(account, 1_000, "EUR", "ben-ops");
    String base = payoutOps(payout.id());

    HttpResponse<String> noReason = World.send("POST", base + "/cancel", "{\"reason\":\" \"}");
    assertThat(noReason.statusCode()).as(noReason.body()).isEqualTo(400);
    assertThat(World.JSON.readTree(noReason.body()).path("code").asString())
        .isEqualTo("INVALID_REQUEST");
    assertThat(World.send("POST", base + "/delete", "{\"reason\":\"x\"}").statusCode())
        .isEqualTo(400);
    assertThat(
            World.send(
                    "POST",
                    payoutOps(java.util.UUID.randomUUID()) + "/cancel",
                    "{\"reason\":\"x\"}")
                .statusCode())
        .isEqualTo(404);

    HttpResponse<String> ok =
        World.send("POST", base + "/cancel", "{\"reason\":\"duplicate request\"}");
    assertThat(ok.statusCode()).isEqualTo(200);
    JsonNode body = World.JSON.readTree(ok.body());
    assertThat(body.path("state").asString()).isEqualTo("ABANDONED");

    HttpResponse<String> again = World.send("POST", base + "/cancel", "{\"reason\":\"again\"}");
    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(World.JSON.readTree(again.body()).path("code").asString())
        .isEqualTo("ILLEGAL_TRANSITION");
  }

  private static void assertRefused(Runnable action) {
    assertThatThrownBy(action::run)
        .isInstanceOfSatisfying(
            OperatorActionRefusedException.class,
            e -> assertThat(e.code()).isEqualTo("ILLEGAL_TRANSITION"));
  }

  private long operatorAudit(Payout payout) {
    return world
        .sql
        .sql(
            "SELECT count(*) FROM audit_event WHERE payout_id = :id AND actor_role = 'OPERATOR'"
                + " AND fencing_token IS NOT NULL AND reason IS NOT NULL")
        .param("id", payout.id().value())
        .query(Long.class)
        .single();
  }
}
