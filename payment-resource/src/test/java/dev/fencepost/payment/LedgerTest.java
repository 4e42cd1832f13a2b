package dev.fencepost.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * FR-25, INV-03, ADR 0033: money moves only as balanced groups, and balances follow their entries.
 */
@Tag("FR-25")
@Tag("INV-03")
class LedgerTest {

  @RegisterExtension static EmbeddedPostgresExtension db = Paydb.extension();

  static final FencingToken TOKEN = FencingToken.of(42);

  PaymentResource resource;
  Scenarios scenarios;
  Paydb paydb;

  @BeforeEach
  void setUp() {
    resource = new PaymentResource(db.dataSource(), new SimpleMeterRegistry());
    scenarios = new Scenarios(resource, new PayoutIntake(db.dataSource(), "ledger"));
    paydb = new Paydb(db.dataSource());
  }

  @Test
  void postingWritesTwoBalancedLegsUnderTheTokenAndMovesBothBalances() {
    Payout acked = scenarios.payoutIn(PayoutState.RAIL_ACKED);
    long clearingBefore = paydb.balance(AccountId.PAYOUT_CLEARING);

    Payout posted = resource.post(acked.id(), TOKEN, Actor.worker("w"));

    assertThat(posted.state()).isEqualTo(PayoutState.POSTED);
    List<Map<String, Object>> legs =
        paydb
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
    assertThat(paydb.balance(acked.accountId())).isEqualTo(Scenarios.FUNDING - Scenarios.AMOUNT);
    assertThat(paydb.balance(AccountId.PAYOUT_CLEARING))
        .isEqualTo(clearingBefore + Scenarios.AMOUNT);
    assertThat(resource.ledgerAudit().driftOf(acked.accountId())).isEmpty();
    assertThat(resource.ledgerAudit().check(10).clean()).isTrue();
  }

  @Test
  void noOtherTransitionMovesMoney() {
    long entries = paydb.count("ledger_entry");
    for (PayoutState state :
        List.of(
            PayoutState.CLAIMED,
            PayoutState.RAIL_SUBMITTED,
            PayoutState.RAIL_ACKED,
            PayoutState.RAIL_AMBIGUOUS,
            PayoutState.FAILED,
            PayoutState.ABANDONED)) {
      AccountId account = scenarios.account(Scenarios.FUNDING);
      entries += 2; // the funding group
      scenarios.payoutIn(state, account);
      assertThat(paydb.balance(account)).as(state.name()).isEqualTo(Scenarios.FUNDING);
    }
    assertThat(paydb.count("ledger_entry")).isEqualTo(entries);
  }

  @Test
  void aPayoutIsPostedAtMostOnce() {
    Payout posted = scenarios.payoutIn(PayoutState.POSTED);
    var before = paydb.snapshot();

    assertThatThrownBy(() -> resource.post(posted.id(), TOKEN, Actor.worker("w")))
        .isInstanceOf(IllegalTransitionException.class);

    assertThat(paydb.snapshot()).isEqualTo(before);
  }

  @Test
  void fundingIsABalancedGroupFromTheFundingSourceSoTheWholeLedgerSumsToZero() {
    long sourceBefore = paydb.balance(AccountId.FUNDING_SOURCE);

    AccountId account = scenarios.account(7_000);

    assertThat(paydb.balance(account)).isEqualTo(7_000);
    assertThat(paydb.balance(AccountId.FUNDING_SOURCE)).isEqualTo(sourceBefore - 7_000);
    assertThat(resource.ledgerAudit().globalSum()).isEqualTo(BigInteger.ZERO);
    assertThat(resource.ledgerAudit().check(10).clean()).isTrue();
  }

  @Test
  void anAmbiguousPayoutResolvedAsSettledIsPostedByTheNextWorker() {
    Payout ambiguous = scenarios.payoutIn(PayoutState.RAIL_AMBIGUOUS);
    resource.resolveSettled(ambiguous.id(), TOKEN, Actor.reconciler("recon"), "R-9");
    FencingToken next = FencingToken.of(TOKEN.value() + 1);

    Payout posted = resource.post(ambiguous.id(), next, Actor.worker("w-next"));

    assertThat(posted.state()).isEqualTo(PayoutState.POSTED);
    assertThat(paydb.balance(ambiguous.accountId()))
        .isEqualTo(Scenarios.FUNDING - Scenarios.AMOUNT);
    assertThat(resource.ledgerAudit().check(10).clean()).isTrue();
  }
}
