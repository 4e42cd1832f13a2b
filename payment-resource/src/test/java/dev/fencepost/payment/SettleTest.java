package dev.fencepost.payment;

import static dev.fencepost.payment.Scenarios.T1;
import static dev.fencepost.payment.Scenarios.T2;
import static dev.fencepost.payment.Scenarios.W2;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.lock.FencedOutException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The settlement of a payout the rail acknowledged (ADR 0219): the three transitions that follow
 * the acknowledgement, CLAIMED to RAIL_SUBMITTED to RAIL_ACKED to POSTED, made in one fenced
 * transaction. Each leaves the audit row, the event and (for the posting) the ledger legs the step
 * on its own leaves; either all three commit or none does, the fence advance included.
 */
@Tag("UC-01")
@Tag("FR-16")
@Tag("FR-25")
@Tag("INV-03")
class SettleTest {

  @RegisterExtension static PaymentFixture fx = PaymentFixture.withLoader("settle");

  @Test
  void aClaimedPayoutTheRailAcknowledgedIsSubmittedAckedAndPostedInOrder() {
    Payout claimed = fx.scenarios().payoutIn(PayoutState.CLAIMED);
    long clearingBefore = fx.paydb().balance(AccountId.PAYOUT_CLEARING);
    int eventsBefore = fx.events().named("payout.transition").size();

    Payout posted = fx.resource().settle(claimed.id(), T2, W2, "rail-ref-9");

    assertThat(posted.state()).isEqualTo(PayoutState.POSTED);
    assertThat(posted.railReference()).isEqualTo("rail-ref-9");
    assertThat(fx.resource().findPayout(claimed.id())).contains(posted);
    assertThat(fx.paydb().fence(claimed.accountId())).isEqualTo(T2.value());
    assertThat(fx.paydb().auditOf(claimed.id()))
        .extracting(
            row -> row.get("action") + " " + row.get("from_state") + ">" + row.get("to_state"))
        .endsWith(
            "CLAIM PENDING>CLAIMED",
            "SUBMIT_ACCEPTED CLAIMED>RAIL_SUBMITTED",
            "RAIL_ACKED RAIL_SUBMITTED>RAIL_ACKED",
            "POST RAIL_ACKED>POSTED");
    List<Map<String, Object>> audit = fx.paydb().auditOf(claimed.id());
    assertThat(audit.subList(audit.size() - 3, audit.size()))
        .allSatisfy(
            row -> {
              assertThat(row.get("fencing_token")).isEqualTo(T2.value());
              assertThat(row.get("actor_id")).isEqualTo(W2.id());
            });
    List<Map<String, Object>> events = fx.events().named("payout.transition");
    assertThat(events.subList(eventsBefore, events.size()))
        .extracting(e -> e.get("payoutEvent"))
        .as("one event per transition, after the commit, in order")
        .containsExactly("SUBMIT_ACCEPTED", "RAIL_ACKED", "POST");
    assertThat(fx.paydb().balance(claimed.accountId()))
        .isEqualTo(Scenarios.FUNDING - Scenarios.AMOUNT);
    assertThat(fx.paydb().balance(AccountId.PAYOUT_CLEARING))
        .isEqualTo(clearingBefore + Scenarios.AMOUNT);
    assertThat(fx.resource().ledgerAudit().driftOf(claimed.accountId())).isEmpty();
  }

  @Test
  void aPayoutFoundRailSubmittedIsAckedAndPosted() {
    Payout submitted = fx.scenarios().payoutIn(PayoutState.RAIL_SUBMITTED);

    Payout posted = fx.resource().settle(submitted.id(), T2, W2, "rail-ref-10");

    assertThat(posted.state()).isEqualTo(PayoutState.POSTED);
    assertThat(fx.paydb().auditOf(submitted.id()))
        .extracting(row -> row.get("action"))
        .endsWith("SUBMIT_ACCEPTED", "RAIL_ACKED", "POST")
        .filteredOn("SUBMIT_ACCEPTED"::equals)
        .as("submitted once, by the step before")
        .hasSize(1);
  }

  @Test
  void itLeavesPaydbAsTheThreeStepsOneAtATimeWouldLeaveIt() {
    Payout together = fx.scenarios().payoutIn(PayoutState.CLAIMED);
    Payout stepwise = fx.scenarios().payoutIn(PayoutState.CLAIMED);

    Payout settled = fx.resource().settle(together.id(), T2, W2, "rail-ref");
    fx.resource().markSubmitted(stepwise.id(), T2, W2);
    fx.resource().recordRailAcked(stepwise.id(), T2, W2, "rail-ref");
    Payout posted = fx.resource().post(stepwise.id(), T2, W2);

    assertThat(comparable(settled)).isEqualTo(comparable(posted));
    assertThat(fx.paydb().auditOf(together.id())).isEqualTo(fx.paydb().auditOf(stepwise.id()));
    assertThat(legsWithoutIds(together)).isEqualTo(legsWithoutIds(stepwise)).hasSize(2);
  }

  @Test
  void aPostingThatWouldBreakTheLedgerRollsBackTheSubmissionAndTheAcknowledgementToo() {
    Payout claimed = fx.scenarios().payoutIn(PayoutState.CLAIMED);
    fx.paydb().corruptBalance(claimed.accountId(), 1);
    var before = fx.paydb().snapshot();

    assertThatThrownBy(() -> fx.resource().settle(claimed.id(), T2, W2, "rail-ref-11"))
        .isInstanceOf(LedgerImbalanceException.class);

    assertThat(fx.paydb().snapshot()).as("not RAIL_ACKED: nothing at all").isEqualTo(before);
    assertThat(fx.resource().findPayout(claimed.id()).orElseThrow().state())
        .isEqualTo(PayoutState.CLAIMED);
    assertThat(fx.paydb().fence(claimed.accountId())).isLessThan(T2.value());
  }

  @Test
  void aStaleTokenIsFencedOutAndChangesNothing() {
    Payout claimed = fx.scenarios().takenOverFromW1();
    var before = fx.paydb().snapshot();

    assertThatThrownBy(() -> fx.resource().settle(claimed.id(), T1, Scenarios.W1, "rail-ref-12"))
        .isInstanceOf(FencedOutException.class);

    assertThat(fx.paydb().snapshot()).isEqualTo(before);
    assertThat(fx.events().named("lock.fenced_out"))
        .last()
        .satisfies(e -> assertThat(e.get("presentedToken")).isEqualTo(T1.value()));
  }

  @Test
  void aPayoutInAnyOtherStateIsRefusedAsAnAcknowledgementAloneIsAndNothingChanges() {
    for (PayoutState state :
        new PayoutState[] {
          PayoutState.PENDING,
          PayoutState.RAIL_ACKED,
          PayoutState.RAIL_AMBIGUOUS,
          PayoutState.POSTED,
          PayoutState.FAILED,
          PayoutState.ABANDONED
        }) {
      Payout payout = fx.scenarios().payoutIn(state);
      var before = fx.paydb().snapshot();

      assertThatThrownBy(() -> fx.resource().settle(payout.id(), T2, W2, "rail-ref-13"))
          .as(state.name())
          .isInstanceOfSatisfying(
              IllegalTransitionException.class,
              e -> {
                assertThat(e.from()).isEqualTo(state);
                assertThat(e.event()).isEqualTo(PayoutEvent.RAIL_ACKED);
              });
      assertThat(fx.paydb().snapshot()).as("%s: nothing changed", state).isEqualTo(before);
    }
  }

  @Test
  void anOperatorOrTheReconcilerIsRefusedAndNothingChanges() {
    Payout claimed = fx.scenarios().payoutIn(PayoutState.CLAIMED);
    var before = fx.paydb().snapshot();

    for (Actor notAWorker :
        new Actor[] {Actor.operator("op-settles"), Actor.reconciler("rec-settles")}) {
      assertThatThrownBy(() -> fx.resource().settle(claimed.id(), T2, notAWorker, "rail-ref-14"))
          .as(notAWorker.role().name())
          .isInstanceOf(IllegalTransitionException.class);
    }
    assertThat(fx.paydb().snapshot()).isEqualTo(before);
  }

  @Test
  @Tag("NFR-08")
  void badInputIsAClearErrorAndChangesNothing() {
    Payout claimed = fx.scenarios().payoutIn(PayoutState.CLAIMED);
    var before = fx.paydb().snapshot();

    assertThatThrownBy(() -> fx.resource().settle(null, T2, W2, "rail-ref"))
        .isInstanceOf(InvalidPaymentRequestException.class);
    assertThatThrownBy(() -> fx.resource().settle(claimed.id(), null, W2, "rail-ref"))
        .isInstanceOf(InvalidPaymentRequestException.class);
    assertThatThrownBy(() -> fx.resource().settle(claimed.id(), T2, null, "rail-ref"))
        .isInstanceOf(InvalidPaymentRequestException.class);
    for (String reference : new String[] {null, "", "   "}) {
      assertThatThrownBy(() -> fx.resource().settle(claimed.id(), T2, W2, reference))
          .as("rail reference [%s]", reference)
          .isInstanceOf(InvalidPaymentRequestException.class)
          .hasMessageContaining("rail reference");
    }
    assertThatThrownBy(() -> fx.resource().settle(PayoutId.random(), T2, W2, "rail-ref"))
        .isInstanceOf(PayoutNotFoundException.class);
    assertThat(fx.paydb().snapshot()).isEqualTo(before);
  }

  /** What two payouts of the same amount and history have in common: all but ids and times. */
  private static List<Object> comparable(Payout payout) {
    return List.of(
        payout.state(),
        payout.amountMinor(),
        payout.currency(),
        payout.railReference(),
        payout.claimedBy(),
        payout.tokenStamp(),
        payout.version(),
        String.valueOf(payout.failureReason()));
  }

  private static List<List<Object>> legsWithoutIds(Payout payout) {
    return fx.paydb()
        .jdbc()
        .sql(
            "SELECT e.account_id = :account AS customer_leg, e.signed_amount, e.fencing_token,"
                + " g.kind, g.actor FROM ledger_entry e JOIN ledger_group g ON g.id = e.group_id"
                + " WHERE e.payout_id = :p ORDER BY e.id")
        .param("p", payout.id().value())
        .param("account", payout.accountId().value())
        .query(
            (rs, n) ->
                List.<Object>of(
                    rs.getBoolean(1),
                    rs.getLong(2),
                    rs.getLong(3),
                    rs.getString(4),
                    rs.getString(5)))
        .list();
  }
}
