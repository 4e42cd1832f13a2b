package dev.fencepost.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.testsupport.logging.CapturedEvents;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Intake (ADR 0038): customer accounts, balanced funding, PENDING payouts, all audited. */
class PayoutIntakeTest {

  @RegisterExtension static EmbeddedPostgresExtension db = Paydb.extension();
  @RegisterExtension CapturedEvents events = new CapturedEvents();

  PaymentResource resource;
  PayoutIntake intake;
  Paydb paydb;

  @BeforeEach
  void setUp() {
    resource = new PaymentResource(db.dataSource(), new SimpleMeterRegistry());
    intake = new PayoutIntake(db.dataSource(), "seed-loader");
    paydb = new Paydb(db.dataSource());
  }

  @Test
  void aFundedAccountStartsWithABalancedFundingGroupAndAnAuditTrail() {
    AccountView account = intake.createAccount(AccountId.of("acc-funded"), 12_345);

    assertThat(account.kind()).isEqualTo(AccountView.Kind.CUSTOMER);
    assertThat(account.currency()).isEqualTo("EUR");
    assertThat(account.balanceMinor()).isEqualTo(12_345);
    assertThat(account.fence()).isZero();
    assertThat(
            paydb
                .jdbc()
                .sql(
                    "SELECT action FROM audit_event WHERE account_id = 'acc-funded'"
                        + " AND actor_role = 'INTAKE' AND actor_id = 'seed-loader' ORDER BY id")
                .query(String.class)
                .list())
        .containsExactly("ACCOUNT_CREATED", "ACCOUNT_FUNDED");
    assertThat(events.named("account.created")).hasSize(1);
    assertThat(events.named("account.funded"))
        .singleElement()
        .satisfies(e -> assertThat(e.get("amountMinor")).isEqualTo(12_345L));
    assertThat(resource.ledgerAudit().check(10).clean()).isTrue();
  }

  @Test
  void anUnfundedAccountHasNoLedgerEntries() {
    long entries = paydb.count("ledger_entry");
    assertThat(intake.createAccount(AccountId.of("acc-empty"), 0).balanceMinor()).isZero();
    assertThat(paydb.count("ledger_entry")).isEqualTo(entries);
  }

  @Test
  void aPendingPayoutGetsItsClientReferenceFromItsIdAndIsAudited() {
    intake.createAccount(AccountId.of("acc-payouts"), 1_000);
    PayoutId id = PayoutId.parse("00000000-0000-4000-8000-000000000abc");

    Payout payout =
        intake.createPendingPayout(id, AccountId.of("acc-payouts"), 250, "EUR", "bene:42");

    assertThat(payout.state()).isEqualTo(PayoutState.PENDING);
    assertThat(payout.clientReference()).isEqualTo("fp-00000000000040008000000000000abc");
    assertThat(payout.tokenStamp()).isNull();
    assertThat(paydb.auditOf(id))
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.get("action")).isEqualTo("PAYOUT_CREATED");
              assertThat(a.get("to_state")).isEqualTo("PENDING");
              assertThat(a.get("fencing_token")).isNull();
            });
  }

  @Test
  void fundingIsRefusedWhileAPayoutIsInFlightAndAllowedAgainOnceItEnded() {
    AccountId account = AccountId.of("acc-busy");
    intake.createAccount(account, 1_000);
    Payout payout = intake.createPendingPayout(account, 100, "EUR", "b");
    // PENDING is not in flight: funding before anyone claims is fine.
    assertThat(intake.fund(account, 1).balanceMinor()).isEqualTo(1_001);

    resource.claim(payout.id(), FencingToken.of(5), Actor.worker("w"));
    var before = paydb.snapshot();

    assertThatThrownBy(() -> intake.fund(account, 1))
        .isInstanceOf(AccountBusyException.class)
        .hasMessageContaining("1 payout(s) in flight");
    assertThat(paydb.snapshot()).isEqualTo(before);

    resource.markSubmitted(payout.id(), FencingToken.of(5), Actor.worker("w"));
    resource.recordRailDeclined(payout.id(), FencingToken.of(5), Actor.worker("w"), "AC04");
    assertThat(intake.fund(account, 1).balanceMinor()).isEqualTo(1_002);
  }

  @Test
  void intakeNeverTouchesTheFence() {
    AccountId account = AccountId.of("acc-fence");
    intake.createAccount(account, 1_000);
    Payout first = intake.createPendingPayout(account, 10, "EUR", "b");
    resource.cancel(first.id(), FencingToken.of(77), Actor.operator("op"), "test");

    intake.fund(account, 5);
    intake.createPendingPayout(account, 10, "EUR", "b");

    assertThat(paydb.fence(account)).isEqualTo(77L);
    assertThat(paydb.balance(account)).isEqualTo(1_005L);
  }
}
