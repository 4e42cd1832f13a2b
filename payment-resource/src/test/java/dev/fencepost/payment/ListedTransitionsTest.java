package dev.fencepost.payment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.payment.PayoutTransitions.Transition;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every row of the table, through the method a job calls, on a real paydb: the state moves, the
 * fence and the token stamp become the caller's token, an audit row names actor and token (FR-30),
 * and a {@code payout.transition} event and counter are emitted.
 */
@Tag("FR-22")
@Tag("FR-30")
class ListedTransitionsTest {

  @RegisterExtension static PaymentFixture fx = PaymentFixture.withLoader("listed");

  static final FencingToken TOKEN = FencingToken.of(20);

  static Stream<Transition> rows() {
    return PayoutTransitions.rows().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void everyListedTransitionIsAppliedAuditedAndSignalled(Transition row) {
    // FUNDS_INSUFFICIENT is what a claim becomes on an account that cannot cover the amount.
    AccountId account =
        fx.scenarios()
            .account(
                row.event() == PayoutEvent.FUNDS_INSUFFICIENT
                    ? Scenarios.AMOUNT - 1
                    : Scenarios.FUNDING);
    Payout before = fx.scenarios().payoutIn(row.from(), account);
    Actor actor = Events.actorFor(row.trigger());

    Payout after = Events.invoke(fx.resource(), row.event(), before.id(), TOKEN, actor);

    assertThat(after.state()).isEqualTo(row.to());
    assertThat(after.tokenStamp()).isEqualTo(TOKEN.value());
    assertThat(after.version()).isEqualTo(before.version() + 1);
    assertThat(after.finishedAt() != null).isEqualTo(row.to().isTerminal());
    assertThat(after.clientReference()).isEqualTo(before.clientReference());
    assertThat(fx.paydb().fence(account)).isEqualTo(TOKEN.value());
    assertThat(fx.paydb().auditOf(before.id()))
        .last()
        .satisfies(
            audit -> {
              assertThat(audit.get("action")).isEqualTo(row.event().name());
              assertThat(audit.get("from_state")).isEqualTo(row.from().name());
              assertThat(audit.get("to_state")).isEqualTo(row.to().name());
              assertThat(audit.get("fencing_token")).isEqualTo(TOKEN.value());
              assertThat(audit.get("actor_role")).isEqualTo(row.trigger().name());
              assertThat(audit.get("actor_id")).isEqualTo(actor.id());
            });
    assertThat(fx.events().named("payout.transition"))
        .last()
        .satisfies(
            e -> {
              assertThat(e.get("payoutId")).isEqualTo(before.id().toString());
              assertThat(e.get("accountId")).isEqualTo(account.value());
              assertThat(e.get("token")).isEqualTo(TOKEN.value());
              assertThat(e.get("from")).isEqualTo(row.from().name());
              assertThat(e.get("to")).isEqualTo(row.to().name());
              assertThat(e.get("actor")).isEqualTo(actor.id());
            });
    assertThat(
            fx.meters()
                .get("fencepost.payout.transitions")
                .tag("from", row.from().name())
                .tag("to", row.to().name())
                .tag("event", row.event().name())
                .counter()
                .count())
        .isEqualTo(1.0);
  }

  @Test
  void claimRecordsTheClaimerAndAReclaimReplacesIt() {
    Payout claimed = fx.scenarios().payoutIn(PayoutState.CLAIMED);
    assertThat(claimed.claimedBy()).isEqualTo(Scenarios.SETUP_WORKER.id());
    assertThat(claimed.claimedAt()).isNotNull();

    Payout reclaimed = fx.resource().reclaim(claimed.id(), TOKEN, Actor.worker("w-later"));

    assertThat(reclaimed.state()).isEqualTo(PayoutState.CLAIMED);
    assertThat(reclaimed.claimedBy()).isEqualTo("w-later");
    assertThat(reclaimed.claimedAt()).isAfterOrEqualTo(claimed.claimedAt());
  }

  @Test
  @Tag("A-09")
  void aClaimWithoutSufficientFundsFailsThePayoutWithItsReasonAndMovesNoMoney() {
    AccountId poor = fx.scenarios().account(Scenarios.AMOUNT - 1);
    Payout pending = fx.scenarios().pending(poor, Scenarios.AMOUNT);
    long ledgerRows = fx.paydb().count("ledger_entry");

    Payout failed = fx.resource().claim(pending.id(), TOKEN, Actor.worker("w-1"));

    assertThat(failed.state()).isEqualTo(PayoutState.FAILED);
    assertThat(failed.failureReason())
        .isEqualTo(
            "insufficient funds at claim time: available "
                + (Scenarios.AMOUNT - 1)
                + ", required "
                + Scenarios.AMOUNT);
    assertThat(failed.claimedBy()).isNull();
    assertThat(fx.paydb().count("ledger_entry")).isEqualTo(ledgerRows);
    assertThat(fx.paydb().balance(poor)).isEqualTo(Scenarios.AMOUNT - 1);
    // Still fenced: the refusal to pay is itself a write under the grant.
    assertThat(fx.paydb().fence(poor)).isEqualTo(TOKEN.value());
    assertThat(fx.paydb().auditOf(pending.id()))
        .last()
        .extracting(a -> a.get("action"))
        .isEqualTo("FUNDS_INSUFFICIENT");
  }

  @Test
  void railOutcomesRecordTheirEvidence() {
    PaymentResource resource = fx.resource();
    Actor worker = Actor.worker("w");
    Actor reconciler = Actor.reconciler("recon");

    Payout acked =
        resource.recordRailAcked(idIn(PayoutState.RAIL_SUBMITTED), TOKEN, worker, "R-77");
    assertThat(acked.railReference()).isEqualTo("R-77");
    assertThat(acked.settledAt()).isNotNull();
    assertThat(acked.submittedAt()).isNotNull();

    Payout declined =
        resource.recordRailDeclined(idIn(PayoutState.RAIL_SUBMITTED), TOKEN, worker, "AC04");
    assertThat(declined.failureReason()).isEqualTo("rail declined: AC04");
    assertThat(declined.settledAt()).isNull();

    Payout absent =
        resource.resolveAbsent(
            idIn(PayoutState.RAIL_AMBIGUOUS),
            TOKEN,
            reconciler,
            "no movement for fp-ref after 24h");
    assertThat(absent.failureReason())
        .isEqualTo("rail lookup found no movement: no movement for fp-ref after 24h");

    Payout settled =
        resource.resolveSettled(idIn(PayoutState.RAIL_AMBIGUOUS), TOKEN, reconciler, "R-78");
    assertThat(settled.state()).isEqualTo(PayoutState.RAIL_ACKED);
    assertThat(settled.railReference()).isEqualTo("R-78");
  }

  @Test
  void operatorActionsRecordWhoAndWhy() {
    Payout cancelled =
        fx.resource()
            .cancel(
                idIn(PayoutState.PENDING),
                TOKEN,
                Actor.operator("alice"),
                "  duplicate instruction  ");
    assertThat(cancelled.failureReason()).isEqualTo("operator alice: duplicate instruction");
    assertThat(fx.paydb().auditOf(cancelled.id()))
        .last()
        .satisfies(
            a -> {
              assertThat(a.get("actor_role")).isEqualTo("OPERATOR");
              assertThat(a.get("actor_id")).isEqualTo("alice");
              assertThat(a.get("reason")).isEqualTo("duplicate instruction");
            });
  }

  /** A fresh payout in {@code state}, arranged by {@link Scenarios}. */
  private static PayoutId idIn(PayoutState state) {
    return fx.scenarios().payoutIn(state).id();
  }
}
