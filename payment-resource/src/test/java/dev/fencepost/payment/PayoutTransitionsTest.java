package dev.fencepost.payment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.payment.PayoutTransitions.Refusal;
import dev.fencepost.payment.PayoutTransitions.Transition;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The table itself, without a database: what the payout state machine says, and nothing more
 * (FR-22).
 */
@Tag("FR-22")
@Tag("INV-08")
class PayoutTransitionsTest {

  @Test
  void theTableIsExactlyTheRowsOfTheSpec() {
    // The table of docs/payment-resource.md, column for column: from, event, to, who may trigger.
    assertThat(PayoutTransitions.rows())
        .containsExactlyElementsOf(
            rows(
                """
                PENDING         CLAIM               CLAIMED         WORKER
                PENDING         FUNDS_INSUFFICIENT  FAILED          WORKER
                PENDING         OPERATOR_CANCEL     ABANDONED       OPERATOR
                CLAIMED         RECLAIM             CLAIMED         WORKER
                CLAIMED         SUBMIT_ACCEPTED     RAIL_SUBMITTED  WORKER
                RAIL_SUBMITTED  RAIL_ACKED          RAIL_ACKED      WORKER
                RAIL_SUBMITTED  RAIL_DECLINED       FAILED          WORKER
                RAIL_SUBMITTED  RAIL_TIMEOUT        RAIL_AMBIGUOUS  WORKER
                RAIL_SUBMITTED  OUTCOME_MISSING     RAIL_AMBIGUOUS  WORKER
                RAIL_ACKED      POST                POSTED          WORKER
                RAIL_AMBIGUOUS  LOOKUP_SETTLED      RAIL_ACKED      RECONCILER
                RAIL_AMBIGUOUS  LOOKUP_ABSENT       FAILED          RECONCILER
                RAIL_AMBIGUOUS  OPERATOR_ABANDON    ABANDONED       OPERATOR
                """));
  }

  @Test
  void theTableIsTotalEveryTripleIsEitherOneRowOrARefusal() {
    int allowed = 0;
    for (PayoutState state : PayoutState.values()) {
      for (PayoutEvent event : PayoutEvent.values()) {
        for (Actor.Role role : Actor.Role.values()) {
          var row = PayoutTransitions.find(state, event);
          var refusal = PayoutTransitions.refusal(state, event, role);
          if (row.isEmpty()) {
            assertThat(refusal).contains(Refusal.NOT_IN_TABLE);
          } else if (row.get().trigger() == role) {
            assertThat(refusal).isEmpty();
            allowed++;
          } else {
            assertThat(refusal).contains(Refusal.ROLE_NOT_PERMITTED);
          }
        }
      }
    }
    assertThat(allowed).isEqualTo(PayoutTransitions.rows().size());
  }

  @Test
  void terminalStatesHaveNoOutgoingTransitionAtAll() {
    for (PayoutState state : PayoutState.values()) {
      assertThat(PayoutTransitions.hasOutgoing(state)).isEqualTo(!state.isTerminal());
      if (state.isTerminal()) {
        for (PayoutEvent event : PayoutEvent.values()) {
          assertThat(PayoutTransitions.find(state, event)).isEmpty();
        }
      }
    }
    assertThat(Arrays.stream(PayoutState.values()).filter(PayoutState::isTerminal))
        .containsExactly(PayoutState.POSTED, PayoutState.FAILED, PayoutState.ABANDONED);
  }

  @Test
  void theOnlyWayIntoRailSubmittedIsFromClaimedSoAnAmbiguousPayoutIsNeverResubmitted() {
    assertThat(PayoutTransitions.rows())
        .filteredOn(t -> t.to() == PayoutState.RAIL_SUBMITTED)
        .singleElement()
        .extracting(Transition::from)
        .isEqualTo(PayoutState.CLAIMED);
    assertThat(PayoutTransitions.rows())
        .filteredOn(t -> t.from() == PayoutState.RAIL_AMBIGUOUS)
        .extracting(Transition::to)
        .doesNotContain(PayoutState.CLAIMED, PayoutState.PENDING, PayoutState.RAIL_SUBMITTED);
  }

  @Test
  void everyEventHasExactlyOneRow() {
    for (PayoutEvent event : PayoutEvent.values()) {
      assertThat(PayoutTransitions.rows()).filteredOn(t -> t.event() == event).hasSize(1);
    }
  }

  @Test
  void anEventAloneNamesItsRowSoPaydbCanCheckTheFromStateInTheUpdate() {
    for (Transition row : PayoutTransitions.rows()) {
      assertThat(PayoutTransitions.forEvent(row.event())).isEqualTo(row);
    }
  }

  private static List<Transition> rows(String table) {
    return table
        .lines()
        .map(line -> line.trim().split("\\s+"))
        .map(
            cell ->
                new Transition(
                    PayoutState.valueOf(cell[0]),
                    PayoutEvent.valueOf(cell[1]),
                    PayoutState.valueOf(cell[2]),
                    Actor.Role.valueOf(cell[3])))
        .toList();
  }
}
