package dev.fencepost.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.testsupport.logging.CapturedEvents;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import java.util.function.Consumer;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad input gets a clear exception with a stable code, a {@code payment.request_rejected} event,
 * and changes nothing: every test compares the whole of paydb before and after.
 */
class BadInputTest {

  @RegisterExtension static EmbeddedPostgresExtension db = Paydb.extension();
  @RegisterExtension CapturedEvents events = new CapturedEvents();

  static final FencingToken TOKEN = FencingToken.of(30);
  static final Actor WORKER = Actor.worker("w");

  static Payout pending;
  static Payout submitted;
  static Payout ambiguous;

  PaymentResource resource;
  PayoutIntake intake;
  Paydb paydb;

  @BeforeAll
  static void arrange() {
    PaymentResource resource = new PaymentResource(db.dataSource(), new SimpleMeterRegistry());
    Scenarios scenarios = new Scenarios(resource, new PayoutIntake(db.dataSource(), "bad"));
    pending = scenarios.payoutIn(PayoutState.PENDING);
    submitted = scenarios.payoutIn(PayoutState.RAIL_SUBMITTED);
    ambiguous = scenarios.payoutIn(PayoutState.RAIL_AMBIGUOUS);
  }

  @BeforeEach
  void setUp() {
    resource = new PaymentResource(db.dataSource(), new SimpleMeterRegistry());
    intake = new PayoutIntake(db.dataSource(), "bad");
    paydb = new Paydb(db.dataSource());
  }

  @Test
  @Tag("INV-07")
  void aMissingTokenIsRefusedByEveryMutatingMethod() {
    PayoutId id = pending.id();
    Map<String, ThrowingCallable> calls =
        Map.ofEntries(
            Map.entry("claim", () -> resource.claim(id, null, WORKER)),
            Map.entry("reclaim", () -> resource.reclaim(id, null, WORKER)),
            Map.entry("markSubmitted", () -> resource.markSubmitted(id, null, WORKER)),
            Map.entry("acked", () -> resource.recordRailAcked(id, null, WORKER, "R")),
            Map.entry("declined", () -> resource.recordRailDeclined(id, null, WORKER, "X")),
            Map.entry("timeout", () -> resource.recordRailTimeout(id, null, WORKER, "t")),
            Map.entry("missing", () -> resource.recordOutcomeMissing(id, null, WORKER)),
            Map.entry("post", () -> resource.post(id, null, WORKER)),
            Map.entry("settled", () -> resource.resolveSettled(id, null, WORKER, "R")),
            Map.entry("absent", () -> resource.resolveAbsent(id, null, WORKER, "e")),
            Map.entry("cancel", () -> resource.cancel(id, null, WORKER, "r")),
            Map.entry("abandon", () -> resource.abandon(id, null, WORKER, "r")));
    calls.forEach(
        (name, call) ->
            refusedWithoutChange(
                call,
                e ->
                    assertThat(e)
                        .as(name)
                        .isInstanceOf(InvalidPaymentRequestException.class)
                        .hasMessageContaining("INV-07")));
    assertThat(events.named("payment.request_rejected")).hasSize(calls.size());
  }

  @Test
  void aMissingActorPayoutIdOrAccountIdIsRefused() {
    refusedWithoutChange(
        () -> resource.claim(pending.id(), TOKEN, null), isCode("INVALID_REQUEST"));
    refusedWithoutChange(() -> resource.claim(null, TOKEN, WORKER), isCode("INVALID_REQUEST"));
    refusedWithoutChange(() -> resource.nextPending(null), isCode("INVALID_REQUEST"));
    assertThatThrownBy(() -> Actor.worker(" ")).isInstanceOf(InvalidPaymentRequestException.class);
    assertThatThrownBy(() -> Actor.worker(null)).isInstanceOf(InvalidPaymentRequestException.class);
    assertThatThrownBy(() -> new Actor(null, "x"))
        .isInstanceOf(InvalidPaymentRequestException.class);
  }

  @Test
  void aNonPositiveTokenCannotEvenBeConstructed() {
    assertThatThrownBy(() -> FencingToken.of(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> FencingToken.of(-5)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void blankReasonsAndReferencesAreRefused() {
    refusedWithoutChange(
        () -> resource.cancel(pending.id(), TOKEN, Actor.operator("op"), "  "),
        isCode("INVALID_REQUEST"));
    refusedWithoutChange(
        () -> resource.abandon(ambiguous.id(), TOKEN, Actor.operator("op"), null),
        isCode("INVALID_REQUEST"));
    refusedWithoutChange(
        () -> resource.recordRailAcked(submitted.id(), TOKEN, WORKER, ""),
        isCode("INVALID_REQUEST"));
    refusedWithoutChange(
        () -> resource.recordRailDeclined(submitted.id(), TOKEN, WORKER, null),
        isCode("INVALID_REQUEST"));
    refusedWithoutChange(
        () -> resource.resolveAbsent(ambiguous.id(), TOKEN, Actor.reconciler("r"), "\t"),
        isCode("INVALID_REQUEST"));
    refusedWithoutChange(
        () -> resource.cancel(pending.id(), TOKEN, Actor.operator("op"), "x".repeat(501)),
        isCode("INVALID_REQUEST"));
  }

  @Test
  void anUnknownPayoutIsRefused() {
    PayoutId unknown = PayoutId.random();
    refusedWithoutChange(
        () -> resource.claim(unknown, TOKEN, WORKER),
        e ->
            assertThat(e)
                .isInstanceOfSatisfying(
                    PayoutNotFoundException.class,
                    p -> assertThat(p.payoutId()).isEqualTo(unknown)));
    assertThat(resource.findPayout(unknown)).isEmpty();
  }

  @Test
  void anUnknownAccountIsRefused() {
    AccountId unknown = AccountId.of("nobody");
    refusedWithoutChange(() -> resource.account(unknown), isCode("ACCOUNT_NOT_FOUND"));
    refusedWithoutChange(() -> intake.fund(unknown, 10), isCode("ACCOUNT_NOT_FOUND"));
    refusedWithoutChange(
        () -> intake.createPendingPayout(unknown, 10, "EUR", "b"), isCode("ACCOUNT_NOT_FOUND"));
    refusedWithoutChange(
        () -> resource.ledgerAudit().driftOf(unknown), isCode("ACCOUNT_NOT_FOUND"));
  }

  @Test
  void malformedIdentifiersAreRefused() {
    assertThatThrownBy(() -> AccountId.of("has space"))
        .isInstanceOf(InvalidPaymentRequestException.class);
    assertThatThrownBy(() -> AccountId.of("a".repeat(65)))
        .isInstanceOf(InvalidPaymentRequestException.class);
    assertThatThrownBy(() -> AccountId.of(null)).isInstanceOf(InvalidPaymentRequestException.class);
    assertThatThrownBy(() -> PayoutId.parse("not-a-uuid"))
        .isInstanceOf(InvalidPaymentRequestException.class);
    assertThatThrownBy(() -> PayoutId.parse(null))
        .isInstanceOf(InvalidPaymentRequestException.class);
  }

  @Test
  void zeroNegativeAndOverlargeAmountsAreRefused() {
    AccountId account = pending.accountId();
    for (long amount :
        new long[] {
          0, -1, Long.MIN_VALUE, PaymentResourceOptions.MAX_AMOUNT_MINOR + 1, Long.MAX_VALUE
        }) {
      refusedWithoutChange(
          () -> intake.createPendingPayout(account, amount, "EUR", "b"), isCode("INVALID_AMOUNT"));
      refusedWithoutChange(() -> intake.fund(account, amount), isCode("INVALID_AMOUNT"));
    }
    refusedWithoutChange(
        () -> intake.createAccount(AccountId.of("neg-funding"), -1), isCode("INVALID_AMOUNT"));
  }

  @Test
  void anAmountThatWouldOverflowABalanceIsRefused() {
    AccountId rich = new Scenarios(resource, intake).account(0);
    // Arrange an absurd balance directly; the funding below must not wrap it around.
    paydb
        .jdbc()
        .sql("UPDATE account SET balance_minor = :b WHERE id = :id")
        .param("b", Long.MAX_VALUE - 10)
        .param("id", rich.value())
        .update();

    refusedWithoutChange(
        () -> intake.fund(rich, PaymentResourceOptions.MAX_AMOUNT_MINOR),
        e ->
            assertThat(e)
                .isInstanceOf(InvalidAmountException.class)
                .hasMessageContaining("overflow"));
  }

  @Test
  @Tag("A-06")
  void aCurrencyOtherThanTheDeploymentsIsRefused() {
    for (String currency : new String[] {"USD", "eur", "", null}) {
      refusedWithoutChange(
          () -> intake.createPendingPayout(pending.accountId(), 10, currency, "b"),
          isCode("CURRENCY_MISMATCH"));
    }
    assertThatThrownBy(() -> PaymentResourceOptions.defaults().withCurrency("EURO"))
        .isInstanceOf(InvalidPaymentRequestException.class);
    assertThatThrownBy(
            () ->
                new PaymentResource(
                    db.dataSource(),
                    new SimpleMeterRegistry(),
                    PaymentResourceOptions.defaults().withCurrency("USD")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("paydb was created in EUR");
  }

  @Test
  void aBeneficiaryReferenceMustBeSyntheticAndWellFormed() {
    for (String reference : new String[] {null, "", "Jane Doe", "x".repeat(129)}) {
      refusedWithoutChange(
          () -> intake.createPendingPayout(pending.accountId(), 10, "EUR", reference),
          isCode("INVALID_REQUEST"));
    }
  }

  @Test
  void systemAccountsNeitherOwnPayoutsNorGetFundedNorCreated() {
    refusedWithoutChange(
        () -> intake.createPendingPayout(AccountId.PAYOUT_CLEARING, 10, "EUR", "b"),
        isCode("INVALID_REQUEST"));
    refusedWithoutChange(
        () -> intake.fund(AccountId.FUNDING_SOURCE, 10), isCode("INVALID_REQUEST"));
    refusedWithoutChange(
        () -> intake.createAccount(AccountId.PAYOUT_CLEARING, 0), isCode("INVALID_REQUEST"));
  }

  @Test
  void idsAreNeverReused() {
    refusedWithoutChange(
        () -> intake.createAccount(pending.accountId(), 0), isCode("ALREADY_EXISTS"));
    refusedWithoutChange(
        () -> intake.createPendingPayout(pending.id(), pending.accountId(), 10, "EUR", "b"),
        isCode("ALREADY_EXISTS"));
  }

  @Test
  void pageSizesAreBounded() {
    for (int limit : new int[] {0, -1, PaymentResourceOptions.MAX_PAGE_SIZE + 1}) {
      refusedWithoutChange(() -> resource.pendingCandidates(limit), isCode("INVALID_REQUEST"));
      refusedWithoutChange(() -> resource.inFlight(limit), isCode("INVALID_REQUEST"));
      refusedWithoutChange(
          () -> resource.inState(PayoutState.PENDING, limit), isCode("INVALID_REQUEST"));
      refusedWithoutChange(() -> resource.ledgerAudit().check(limit), isCode("INVALID_REQUEST"));
    }
  }

  private void refusedWithoutChange(ThrowingCallable call, Consumer<Throwable> expectation) {
    var before = paydb.snapshot();
    Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(call);
    assertThat(thrown).isNotNull();
    expectation.accept(thrown);
    assertThat(paydb.snapshot()).isEqualTo(before);
  }

  private static Consumer<Throwable> isCode(String code) {
    return e ->
        assertThat(e)
            .isInstanceOfSatisfying(
                PaymentResourceException.class, p -> assertThat(p.code()).isEqualTo(code));
  }
}
