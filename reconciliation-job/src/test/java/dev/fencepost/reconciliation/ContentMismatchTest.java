package dev.fencepost.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.payment.Actor;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payment.testkit.CompetingSubmission;
import dev.fencepost.payoutjob.PayoutEffectListener;
import dev.fencepost.payoutjob.PayoutExecutor;
import dev.fencepost.payoutjob.PayoutFailpoint;
import dev.fencepost.payoutjob.PayoutOutcome;
import dev.fencepost.payoutjob.RailProxyClient;
import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.grants.TestGrants;
import java.time.Duration;
import java.time.Instant;
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
    claimedAndSubmittedByAnEarlierWorker(
        payout, (token, worker) -> world.payments.recordOutcomeMissing(payout.id(), token, worker));
    assertThat(world.movementCount(payout.clientReference())).isEqualTo(1);
    StoreSnapshot before = StoreSnapshot.of(world);
    Reconciler reconciler = world.reconciler(world.settings());

    // The other submission inside the window: found by the comparison and by the resolver, once.
    ReconciliationReport inWindow = reconciler.run(world.window(), "test");
    // A later window: only the resolver's refusal reports it, on every run until an operator acts.
    Instant later = Instant.now().plusSeconds(5);
    ReconciliationReport afterWindow =
        reconciler.run(new ReconciliationWindow(later, later.plusSeconds(60)), "test");

    // Inside the window the statement's entry shows the other beneficiary too (ADR 0178).
    assertOnlyOnePageFinding(inWindow, payout, "beneficiaryRef");
    DetectionTest.assertOnly(afterWindow, Map.of(Discrepancy.SUBMISSION_CONTENT_MISMATCH, 1L));
    for (ReconciliationReport report : new ReconciliationReport[] {inWindow, afterWindow}) {
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
    claimedAndSubmittedByAnEarlierWorker(
        payout,
        (token, worker) -> {
          world.payments.recordRailAcked(payout.id(), token, worker, "rail-ref");
          return world.payments.post(payout.id(), token, worker);
        });
    StoreSnapshot before = StoreSnapshot.of(world);

    ReconciliationReport report = world.reconciler(world.settings()).run(world.window(), "test");

    assertOnlyOnePageFinding(report, payout, "beneficiaryRef", "ben-somebody-else");
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
    assertThat(countOf(payout, "SELECT count(*) FROM ledger_group WHERE payout_id = :id::uuid"))
        .as("no posting")
        .isZero();
    assertThat(
            countOf(
                payout,
                "SELECT count(*) FROM audit_event WHERE payout_id = :id::uuid"
                    + " AND to_state IN ('RAIL_ACKED', 'POSTED')"))
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

    assertOnlyOnePageFinding(next, payout, field);
    assertThat(StoreSnapshot.of(world)).isEqualTo(before);
    assertThat(world.payments.findPayout(payout.id()).orElseThrow().state())
        .isEqualTo(PayoutState.RAIL_AMBIGUOUS);
  }

  /**
   * This payout's content mismatch, paging, and nothing else: from the proxy's record, and from the
   * rail's statement, whose entry under the payout's reference carries the other payment's content
   * (ADR 0178).
   */
  private static void assertOnlyOnePageFinding(
      ReconciliationReport report, Payout payout, String... detailContains) {
    DetectionTest.assertOnly(
        report,
        Map.of(
            Discrepancy.SUBMISSION_CONTENT_MISMATCH, 1L,
            Discrepancy.MOVEMENT_CONTENT_MISMATCH, 1L));
    assertThat(report.findings())
        .hasSize(2)
        .allSatisfy(
            f -> {
              assertThat(f.severity()).isEqualTo(Severity.PAGE);
              assertThat(f.payoutId()).isEqualTo(payout.id().toString());
            });
    assertThat(report.findings())
        .filteredOn(f -> f.discrepancy() == Discrepancy.SUBMISSION_CONTENT_MISMATCH)
        .singleElement()
        .satisfies(f -> assertThat(f.detail()).contains(detailContains));
  }

  /** A paydb count for this payout; {@code sql} binds its id as {@code :id}. */
  private long countOf(Payout payout, String sql) {
    return world.sql.sql(sql).param("id", payout.id().toString()).query(Long.class).single();
  }

  /** What a worker does after its claim and submission, under the same lock. */
  @FunctionalInterface
  private interface AfterSubmission {
    Payout apply(FencingToken token, Actor worker);
  }

  /**
   * A worker from before ADR 0140, under the account's lock: claims the payout, marks it submitted
   * and then does {@code then}, without looking at whose submission the proxy holds.
   */
  private void claimedAndSubmittedByAnEarlierWorker(Payout payout, AfterSubmission then) {
    Actor worker = Actor.worker("earlier-worker");
    world.locks.execute(
        payout.accountId().lockKey(),
        Duration.ofSeconds(5),
        lock -> {
          world.payments.claim(payout.id(), lock.token(), worker);
          world.payments.markSubmitted(payout.id(), lock.token(), worker);
          return then.apply(lock.token(), worker);
        });
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
   * Sends a {@link CompetingSubmission} straight to the proxy, as a payout worker with a grant the
   * platform's lock-server key signed, and the proxy must acknowledge it.
   */
  private void submitFirst(Payout payout, long amountMinor, String beneficiaryRef) {
    String grant =
        TestGrants.sign(
            world.stack.grantKeys().current(),
            payout.accountId().lockKey().value(),
            CompetingSubmission.FENCING_TOKEN,
            Instant.now().plusSeconds(60));
    Map<String, Object> body = CompetingSubmission.body(payout, amountMinor, beneficiaryRef, grant);
    var answer =
        World.send(
            "POST",
            world.stack.proxyUrl() + "/v1/submissions",
            World.JSON.writeValueAsString(body));
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    assertThat(World.JSON.readTree(answer.body()).path("outcome").asString()).isEqualTo("ACKED");
  }
}
