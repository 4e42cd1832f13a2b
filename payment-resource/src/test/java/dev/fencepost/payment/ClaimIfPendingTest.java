package dev.fencepost.payment;

import static dev.fencepost.payment.Scenarios.T1;
import static dev.fencepost.payment.Scenarios.T2;
import static dev.fencepost.payment.Scenarios.W2;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.lock.FencedOutException;
import dev.fencepost.lock.FencingToken;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The claim a worker makes of a candidate it saw PENDING (ADR 0218): its own transaction is the
 * re-read inside the grant (FR-14). A payout still PENDING is claimed exactly as {@code claim}
 * claims it; one that moved on since the snapshot comes back as found and nothing changes, not even
 * the fence; everything else is refused as every transition refuses it.
 */
@Tag("FR-14")
@Tag("FR-16")
@Tag("UC-02")
class ClaimIfPendingTest {

  @RegisterExtension static PaymentFixture fx = PaymentFixture.withLoader("claim-if-pending");

  @Test
  void aPendingPayoutIsClaimedWithItsFenceAdvanceAndAuditRowAsAClaimIs() {
    Payout pending = fx.scenarios().payoutIn(PayoutState.PENDING);

    ClaimAttempt attempt = fx.resource().claimIfPending(pending.id(), T2, W2);

    assertThat(attempt.claimed()).isTrue();
    assertThat(attempt.payout().state()).isEqualTo(PayoutState.CLAIMED);
    assertThat(attempt.payout().claimedBy()).isEqualTo(W2.id());
    assertThat(fx.resource().findPayout(pending.id())).contains(attempt.payout());
    assertThat(fx.paydb().fence(pending.accountId())).isEqualTo(T2.value());
    assertThat(fx.paydb().auditOf(pending.id()))
        .last()
        .satisfies(row -> assertThat(row.get("action")).isEqualTo("CLAIM"));
    assertThat(fx.events().named("payout.transition")).hasSize(1);
  }

  @Test
  void aBalanceThatCannotCoverTheAmountFailsThePayoutAsAClaimDoes() {
    AccountId poor = fx.scenarios().account(100);
    Payout pending = fx.scenarios().pending(poor, 5_000);

    ClaimAttempt attempt = fx.resource().claimIfPending(pending.id(), T2, W2);

    assertThat(attempt.claimed()).isTrue();
    assertThat(attempt.payout().state()).isEqualTo(PayoutState.FAILED);
    assertThat(attempt.payout().failureReason()).contains("insufficient funds");
  }

  @Test
  void aPayoutMovedOnSinceTheSnapshotComesBackAsFoundAndNothingChangesNotEvenTheFence() {
    for (PayoutState moved :
        new PayoutState[] {
          PayoutState.CLAIMED, PayoutState.RAIL_SUBMITTED, PayoutState.RAIL_ACKED,
          PayoutState.POSTED, PayoutState.RAIL_AMBIGUOUS, PayoutState.FAILED
        }) {
      Payout payout = fx.scenarios().payoutIn(moved);
      var before = fx.paydb().snapshot();
      int rejectedEvents = fx.events().named("payout.transition_rejected").size();

      ClaimAttempt attempt = fx.resource().claimIfPending(payout.id(), T2, W2);

      assertThat(attempt.claimed()).as(moved.name()).isFalse();
      assertThat(attempt.payout()).as(moved.name()).isEqualTo(payout);
      assertThat(fx.paydb().snapshot()).as("%s: nothing changed", moved).isEqualTo(before);
      assertThat(fx.paydb().fence(payout.accountId()))
          .as("%s: the fence advance was rolled back", moved)
          .isLessThan(T2.value());
      assertThat(fx.events().named("payout.transition_rejected"))
          .as("%s: news for the caller, not a refusal", moved)
          .hasSize(rejectedEvents);
    }
    assertThat(fx.meters().find("fencepost.payout.transitions.rejected").counters())
        .allSatisfy(c -> assertThat(c.count()).isZero());
  }

  @Test
  void aStaleTokenIsFencedOutAndChangesNothingWhateverTheState() {
    Payout pending = fx.scenarios().payoutIn(PayoutState.PENDING);
    Payout claimed = fx.scenarios().payoutIn(PayoutState.CLAIMED);
    fx.resource().claimIfPending(pending.id(), T2, W2);
    var before = fx.paydb().snapshot();

    for (Payout payout : new Payout[] {pending, claimed}) {
      FencingToken stale = FencingToken.of(T1.value() - 1);
      assertThatThrownBy(() -> fx.resource().claimIfPending(payout.id(), stale, W2))
          .isInstanceOf(FencedOutException.class);
    }
    assertThat(fx.paydb().snapshot()).isEqualTo(before);
  }

  @Test
  void anOperatorOrTheReconcilerIsRefusedWhateverTheStateAndNothingChanges() {
    Payout pending = fx.scenarios().payoutIn(PayoutState.PENDING);
    Payout posted = fx.scenarios().payoutIn(PayoutState.POSTED);
    var before = fx.paydb().snapshot();

    for (Actor notAWorker :
        new Actor[] {Actor.operator("op-claims"), Actor.reconciler("rec-claims")}) {
      for (Payout payout : new Payout[] {pending, posted}) {
        assertThatThrownBy(() -> fx.resource().claimIfPending(payout.id(), T2, notAWorker))
            .as("%s on %s", notAWorker.role(), payout.state())
            .isInstanceOf(IllegalTransitionException.class);
      }
    }
    assertThat(fx.paydb().snapshot()).isEqualTo(before);
  }

  @Test
  @Tag("NFR-08")
  void badInputIsAClearErrorAndChangesNothing() {
    Payout pending = fx.scenarios().payoutIn(PayoutState.PENDING);
    var before = fx.paydb().snapshot();

    assertThatThrownBy(() -> fx.resource().claimIfPending(null, T2, W2))
        .isInstanceOf(InvalidPaymentRequestException.class);
    assertThatThrownBy(() -> fx.resource().claimIfPending(pending.id(), null, W2))
        .isInstanceOf(InvalidPaymentRequestException.class);
    assertThatThrownBy(() -> fx.resource().claimIfPending(pending.id(), T2, null))
        .isInstanceOf(InvalidPaymentRequestException.class);
    assertThatThrownBy(() -> fx.resource().claimIfPending(PayoutId.random(), T2, W2))
        .isInstanceOf(PayoutNotFoundException.class);
    assertThat(fx.paydb().snapshot()).isEqualTo(before);
  }
}
