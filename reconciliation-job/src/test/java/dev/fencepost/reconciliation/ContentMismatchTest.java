package dev.fencepost.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.payment.Actor;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payoutjob.PayoutEffectListener;
import dev.fencepost.payoutjob.PayoutExecutor;
import dev.fencepost.payoutjob.PayoutFailpoint;
import dev.fencepost.payoutjob.PayoutOutcome;
import dev.fencepost.payoutjob.RailProxyClient;
import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.grants.TestGrants;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * ADR 0140: somebody submits a real payout's id first, through the real proxy to the real rail
 * stub, with another beneficiary or amount. The real payout worker ({@link PayoutExecutor}) meets
 * that submission as a 409 DUPLICATE_SUBMISSION or as the record it finds at recovery, and the
 * resolver meets it as an ambiguous payout whose rail reference shows a movement. None of them
 * records RAIL_ACKED or posts; the payout stays RAIL_AMBIGUOUS for an operator; and the next
 * reconciliation run reports exactly one page-severity finding, {@code
 * SUBMISSION_CONTENT_MISMATCH}, and nothing else.
 */
@Tag("UC-07")
@Tag("FR-26")
@Tag("FR-18")
class ContentMismatchTest extends ReconciliationTestBase {

  private static final long FUNDING = 100_000;

  @Test
  void aDuplicateAnswerWithAnotherBeneficiaryLeavesThePayoutAmbiguousAndIsOnePageFinding() {
    Payout payout = world.pending();
    submitFirst(payout, payout.amountMinor(), "ben-somebody-else");

    PayoutOutcome outcome = executor(PayoutFailpoint.NONE).execute(payout).outcome();

    assertThat(outcome).isEqualTo(PayoutOutcome.CONTENT_MISMATCH);
    assertLeftForAnOperatorAndReportedOnce(payout, "beneficiaryRef");
  }

  @Test
  void aDuplicateAnswerWithAnotherAmountLeavesThePayoutAmbiguousAndIsOnePageFinding() {
    Payout payout = world.pending();
    submitFirst(payout, payout.amountMinor() + 1, payout.beneficiaryRef());

    PayoutOutcome outcome = executor(PayoutFailpoint.NONE).execute(payout).outcome();

    assertThat(outcome).isEqualTo(PayoutOutcome.CONTENT_MISMATCH);
    assertLeftForAnOperatorAndReportedOnce(payout, "amountMinor");
  }

  @Test
  @Tag("UC-04")
  void aRecordFoundAtRecoveryWithAnotherBeneficiaryLeavesThePayoutAmbiguousAndIsOnePageFinding() {
    Payout payout = world.pending();
    PayoutExecutor dies =
        executor(
            (point, p) -> {
              if (point == PayoutFailpoint.Point.CLAIMED) {
                throw new IllegalStateException("worker stopped at " + point);
              }
            });
    assertThatThrownBy(() -> dies.execute(payout)).hasMessageContaining("CLAIMED");
    assertThat(world.payments.findPayout(payout.id()).orElseThrow().state())
        .isEqualTo(PayoutState.CLAIMED);
    submitFirst(payout, payout.amountMinor(), "ben-somebody-else");

    PayoutOutcome outcome = executor(PayoutFailpoint.NONE).execute(payout).outcome();

    assertThat(outcome).isEqualTo(PayoutOutcome.CONTENT_MISMATCH);
    assertLeftForAnOperatorAndReportedOnce(payout, "beneficiaryRef");
  }

  @Test
  @Tag("UC-05")
  void theResolverRefusesToSettleAnAmbiguousPayoutWhoseProxyRecordIsAnotherPayment() {
    Payout payout = world.pending();
    submitFirst(payout, payout.amountMinor(), "ben-somebody-else");
    // A payout already ambiguous when the other submission happened (e.g. before ADR 0140): the
    // rail shows a movement under its client reference, so resolution by evidence alone would
    // settle it and a worker would then post it.
    Actor worker = Actor.worker("earlier-worker");
    world.locks.execute(
        payout.accountId().lockKey(),
        Duration.ofSeconds(5),
        lock -> {
          world.payments.claim(payout.id(), lock.token(), worker);
          world.payments.markSubmitted(payout.id(), lock.token(), worker);
          return world.payments.recordOutcomeMissing(payout.id(), lock.token(), worker);
        });
    assertThat(world.movementCount(payout.clientReference())).isEqualTo(1);
    StoreSnapshot before = StoreSnapshot.of(world);
    Reconciler reconciler = world.reconciler(world.settings());

    // The other submission inside the window: found by the comparison and by the resolver, once.
    ReconciliationReport inWindow = reconciler.run(world.window(), "test");
    // A later window: only the resolver's refusal reports it, on every run until an operator acts.
    Instant later = Instant.now().plusSeconds(5);
    ReconciliationReport afterWindow =
        reconciler.run(new ReconciliationWindow(later, later.plusSeconds(60)), "test");

    for (ReconciliationReport report : new ReconciliationReport[] {inWindow, afterWindow}) {
      DetectionTest.assertOnly(report, Map.of(Discrepancy.SUBMISSION_CONTENT_MISMATCH, 1L));
      assertThat(report.findings())
          .singleElement()
          .satisfies(
              f -> {
                assertThat(f.severity()).isEqualTo(Severity.PAGE);
                assertThat(f.payoutId()).isEqualTo(payout.id().toString());
                assertThat(f.detail()).contains("beneficiaryRef");
              });
      assertThat(report.resolutions().settled()).isZero();
      assertThat(report.resolutions().contentMismatches()).hasSize(1);
    }
    assertThat(StoreSnapshot.of(world)).isEqualTo(before);
    assertThat(world.payments.findPayout(payout.id()).orElseThrow().state())
        .isEqualTo(PayoutState.RAIL_AMBIGUOUS);
    assertThat(events.named("payout.rail_content_mismatch"))
        .hasSize(2)
        .allSatisfy(e -> assertThat(e.get("answer")).isEqualTo("RESOLUTION"));
  }

  @Test
  void aPayoutBookedFromAnotherPaymentsSubmissionIsOnePageFindingOfTheComparison() {
    Payout payout = world.pending();
    submitFirst(payout, payout.amountMinor(), "ben-somebody-else");
    // Booked the way a worker did before ADR 0140: from the record's outcome alone. The resolver
    // never sees a POSTED payout, so only the comparison of the window can find it.
    Actor worker = Actor.worker("earlier-worker");
    world.locks.execute(
        payout.accountId().lockKey(),
        Duration.ofSeconds(5),
        lock -> {
          world.payments.claim(payout.id(), lock.token(), worker);
          world.payments.markSubmitted(payout.id(), lock.token(), worker);
          world.payments.recordRailAcked(payout.id(), lock.token(), worker, "rail-ref");
          return world.payments.post(payout.id(), lock.token(), worker);
        });
    StoreSnapshot before = StoreSnapshot.of(world);

    ReconciliationReport report = world.reconciler(world.settings()).run(world.window(), "test");

    DetectionTest.assertOnly(report, Map.of(Discrepancy.SUBMISSION_CONTENT_MISMATCH, 1L));
    assertThat(report.findings())
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.severity()).isEqualTo(Severity.PAGE);
              assertThat(f.payoutId()).isEqualTo(payout.id().toString());
              assertThat(f.detail()).contains("beneficiaryRef", "ben-somebody-else");
            });
    assertThat(report.resolutions().contentMismatches()).isEmpty();
    assertThat(StoreSnapshot.of(world)).isEqualTo(before);
  }

  @Test
  void aDuplicateAnswerThatIsThisPayoutIsPostedAndReconcilesClean() {
    Payout payout = world.pending();
    submitFirst(payout, payout.amountMinor(), payout.beneficiaryRef());

    PayoutOutcome outcome = executor(PayoutFailpoint.NONE).execute(payout).outcome();

    assertThat(outcome).isEqualTo(PayoutOutcome.POSTED);
    assertThat(world.payments.findPayout(payout.id()).orElseThrow().state())
        .isEqualTo(PayoutState.POSTED);
    assertThat(world.payments.account(payout.accountId()).balanceMinor())
        .isEqualTo(FUNDING - payout.amountMinor());
    assertThat(world.movementCount(payout.clientReference())).isEqualTo(1);
    DetectionTest.assertOnly(
        world.reconciler(world.settings()).run(world.window(), "test"), Map.of());
  }

  private void assertLeftForAnOperatorAndReportedOnce(Payout payout, String field) {
    Payout left = world.payments.findPayout(payout.id()).orElseThrow();
    assertThat(left.state()).isEqualTo(PayoutState.RAIL_AMBIGUOUS);
    assertThat(left.railReference()).isNull();
    assertThat(world.payments.account(payout.accountId()).balanceMinor()).isEqualTo(FUNDING);
    assertThat(
            world
                .sql
                .sql("SELECT count(*) FROM ledger_group WHERE payout_id = :id::uuid")
                .param("id", payout.id().toString())
                .query(Long.class)
                .single())
        .as("no posting")
        .isZero();
    assertThat(
            world
                .sql
                .sql(
                    "SELECT count(*) FROM audit_event WHERE payout_id = :id::uuid"
                        + " AND to_state IN ('RAIL_ACKED', 'POSTED')")
                .param("id", payout.id().toString())
                .query(Long.class)
                .single())
        .as("never RAIL_ACKED")
        .isZero();
    assertThat(events.named("payout.rail_content_mismatch"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.get("payoutId")).hasToString(payout.id().toString());
              assertThat(e.get("fields").toString()).contains(field);
              assertThat(e.get("level")).isEqualTo("ERROR");
            });
    assertThat(
            world
                .meters
                .counter("fencepost.payout.job.outcomes", "outcome", "CONTENT_MISMATCH")
                .count())
        .isEqualTo(1.0);
    // Only the other submission reached the rail: the payout's own was refused and never re-sent.
    assertThat(world.movementCount(payout.clientReference())).isEqualTo(1);

    StoreSnapshot before = StoreSnapshot.of(world);
    ReconciliationReport next = world.reconciler(world.settings()).run(world.window(), "test");

    DetectionTest.assertOnly(next, Map.of(Discrepancy.SUBMISSION_CONTENT_MISMATCH, 1L));
    assertThat(next.findings())
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.severity()).isEqualTo(Severity.PAGE);
              assertThat(f.payoutId()).isEqualTo(payout.id().toString());
              assertThat(f.detail()).contains(field);
            });
    assertThat(StoreSnapshot.of(world)).isEqualTo(before);
    assertThat(world.payments.findPayout(payout.id()).orElseThrow().state())
        .isEqualTo(PayoutState.RAIL_AMBIGUOUS);
  }

  private PayoutExecutor executor(PayoutFailpoint failpoint) {
    return new PayoutExecutor(
        world.locks,
        world.payments,
        new RailProxyClient(
            world.stack.proxyUrl(),
            Duration.ofSeconds(2),
            Duration.ofSeconds(15),
            Duration.ofSeconds(5),
            world.stack.tokens(FencepostRole.PAYOUT_WORKER)),
        failpoint,
        PayoutEffectListener.NONE,
        "content-test-worker",
        Duration.ofMillis(250),
        world.meters);
  }

  /**
   * Somebody else's submission under this payout's id, straight to the proxy with a token below any
   * the lock server grants, so the payout's own worker passes the high-water check and meets the
   * uniqueness guard.
   */
  private void submitFirst(Payout payout, long amountMinor, String beneficiaryRef) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("payoutId", payout.id().toString());
    body.put("accountId", payout.accountId().value());
    body.put("fencingToken", 1);
    body.put("clientReference", payout.clientReference());
    body.put("amountMinor", amountMinor);
    body.put("currency", payout.currency());
    body.put("beneficiaryRef", beneficiaryRef);
    // A validly signed grant for token 1: the proxy refuses any submission without one (ADR 0137),
    // and what is under test is the content check behind it.
    body.put(
        "grant",
        TestGrants.sign(
            world.stack.grantKeys().current(),
            payout.accountId().lockKey().value(),
            1,
            Instant.now().plusSeconds(60)));
    var answer =
        World.send(
            "POST",
            world.stack.proxyUrl() + "/v1/submissions",
            World.JSON.writeValueAsString(body));
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    assertThat(World.JSON.readTree(answer.body()).path("outcome").asString()).isEqualTo("ACKED");
  }
}
