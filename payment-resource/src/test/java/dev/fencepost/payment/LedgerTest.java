package dev.fencepost.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.lock.FencingToken;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * FR-25, INV-03, ADR 0033: money moves only as balanced groups, and balances follow their entries.
 */
@Tag("FR-25")
@Tag("INV-03")
class LedgerTest {

  @RegisterExtension static PaymentFixture fx = PaymentFixture.withLoader("ledger");

  static final FencingToken TOKEN = FencingToken.of(42);

  @Test
  void postingWritesTwoBalancedLegsUnderTheTokenAndMovesBothBalances() {
    Payout acked = fx.scenarios().payoutIn(PayoutState.RAIL_ACKED);
    long clearingBefore = fx.paydb().balance(AccountId.PAYOUT_CLEARING);

    Payout posted = fx.resource().post(acked.id(), TOKEN, Actor.worker("w"));

    assertThat(posted.state()).isEqualTo(PayoutState.POSTED);
    List<Map<String, Object>> legs =
        fx.paydb()
            .jdbc()
            .sql(
                "SELECT e.account_id, e.counterparty_account_id, e.signed_amount, e.fencing_token,"
                    + " g.kind, g.actor FROM ledger_entry e JOIN ledger_group g ON g.id = e.group_id"
                    + " WHERE e.payout_id = :p ORDER BY e.id")
            .param("p", acked.id().value())
            .query()
            .listOfRows();
    assertThat(legs)
        .containsExactly(
            Map.of(
                "account_id",
                acked.accountId().value(),
                "counterparty_account_id",
                "payout-clearing",
                "signed_amount",
                -Scenarios.AMOUNT,
                "fencing_token",
                TOKEN.value(),
                "kind",
                "PAYOUT_POSTING",
                "actor",
                "w"),
            Map.of(
                "account_id",
                "payout-clearing",
                "counterparty_account_id",
                acked.accountId().value(),
                "signed_amount",
                Scenarios.AMOUNT,
                "fencing_token",
                TOKEN.value(),
                "kind",
                "PAYOUT_POSTING",
                "actor",
                "w"));
    assertThat(fx.paydb().balance(acked.accountId()))
        .isEqualTo(Scenarios.FUNDING - Scenarios.AMOUNT);
    assertThat(fx.paydb().balance(AccountId.PAYOUT_CLEARING))
        .isEqualTo(clearingBefore + Scenarios.AMOUNT);
    assertThat(fx.resource().ledgerAudit().driftOf(acked.accountId())).isEmpty();
    assertThat(fx.resource().ledgerAudit().check(10).clean()).isTrue();
  }

  @Test
  void noOtherTransitionMovesMoney() {
    long entries = fx.paydb().count("ledger_entry");
    for (PayoutState state :
        List.of(
            PayoutState.CLAIMED,
            PayoutState.RAIL_SUBMITTED,
            PayoutState.RAIL_ACKED,
            PayoutState.RAIL_AMBIGUOUS,
            PayoutState.FAILED,
            PayoutState.ABANDONED)) {
      AccountId account = fx.scenarios().account(Scenarios.FUNDING);
      entries += 2; // the funding group
      fx.scenarios().payoutIn(state, account);
      assertThat(fx.paydb().balance(account)).as(state.name()).isEqualTo(Scenarios.FUNDING);
    }
    assertThat(fx.paydb().count("ledger_entry")).isEqualTo(entries);
  }

  @Test
  void aPayoutIsPostedAtMostOnce() {
    Payout posted = fx.scenarios().payoutIn(PayoutState.POSTED);
    var before = fx.paydb().snapshot();

    assertThatThrownBy(() -> fx.resource().post(posted.id(), TOKEN, Actor.worker("w")))
        .isInstanceOf(IllegalTransitionException.class);

    assertThat(fx.paydb().snapshot()).isEqualTo(before);
  }

  @Test
  void fundingIsABalancedGroupFromTheFundingSourceSoTheWholeLedgerSumsToZero() {
    long sourceBefore = fx.paydb().balance(AccountId.FUNDING_SOURCE);

    AccountId account = fx.scenarios().account(7_000);

    assertThat(fx.paydb().balance(account)).isEqualTo(7_000);
    assertThat(fx.paydb().balance(AccountId.FUNDING_SOURCE)).isEqualTo(sourceBefore - 7_000);
    assertThat(fx.resource().ledgerAudit().globalSum()).isEqualTo(BigInteger.ZERO);
    assertThat(fx.resource().ledgerAudit().check(10).clean()).isTrue();
  }

  @Test
  void anAmbiguousPayoutResolvedAsSettledIsPostedByTheNextWorker() {
    Payout ambiguous = fx.scenarios().payoutIn(PayoutState.RAIL_AMBIGUOUS);
    fx.resource().resolveSettled(ambiguous.id(), TOKEN, Actor.reconciler("recon"), "R-9");
    FencingToken next = FencingToken.of(TOKEN.value() + 1);

    Payout posted = fx.resource().post(ambiguous.id(), next, Actor.worker("w-next"));

    assertThat(posted.state()).isEqualTo(PayoutState.POSTED);
    assertThat(fx.paydb().balance(ambiguous.accountId()))
        .isEqualTo(Scenarios.FUNDING - Scenarios.AMOUNT);
    assertThat(fx.resource().ledgerAudit().check(10).clean()).isTrue();
  }
}
