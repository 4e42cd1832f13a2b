package dev.fencepost.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What a job reads to choose and recover work. */
class ReadApiTest {

  @RegisterExtension static EmbeddedPostgresExtension db = Paydb.extension();

  static PaymentResource resource;
  static PayoutIntake intake;
  static AccountId idle;
  static AccountId busy;
  static AccountId ambiguousAccount;
  static AccountId settledAccount;
  static Payout idleOldest;
  static Payout idleNewer;
  static Payout busyInFlight;
  static Payout ambiguous;
  static Payout settledPending;

  @BeforeAll
  static void arrange() {
    resource = new PaymentResource(db.dataSource(), new SimpleMeterRegistry());
    intake = new PayoutIntake(db.dataSource(), "reads");
    Scenarios scenarios = new Scenarios(resource, intake);
    idle = scenarios.account(Scenarios.FUNDING);
    busy = scenarios.account(Scenarios.FUNDING);
    ambiguousAccount = scenarios.account(Scenarios.FUNDING);
    idleOldest = scenarios.pending(idle, 100);
    idleNewer = scenarios.pending(idle, 100);
    busyInFlight = scenarios.payoutIn(PayoutState.CLAIMED, busy);
    scenarios.pending(busy, 100);
    ambiguous = scenarios.payoutIn(PayoutState.RAIL_AMBIGUOUS, ambiguousAccount);
    scenarios.pending(ambiguousAccount, 100);
    settledAccount = scenarios.account(Scenarios.FUNDING);
    scenarios.payoutIn(PayoutState.POSTED, settledAccount);
    settledPending = scenarios.pending(settledAccount, 100);
    scenarios.payoutIn(PayoutState.POSTED);
  }

  @Test
  void pendingCandidatesAreTheOldestPerAccountAndSkipAccountsWithAPayoutInFlight() {
    assertThat(resource.pendingCandidates(100))
        .extracting(c -> c.payout().id())
        .contains(idleOldest.id())
        .doesNotContain(idleNewer.id())
        .allSatisfy(
            id -> {
              Payout p = resource.findPayout(id).orElseThrow();
              assertThat(p.state()).isEqualTo(PayoutState.PENDING);
              assertThat(p.accountId()).isNotIn(busy, ambiguousAccount);
            });
    assertThat(resource.pendingCandidates(1)).hasSize(1);
  }

  @Test
  void eachPendingCandidateCarriesItsAccountsCountOfPendingPayouts() {
    assertThat(resource.pendingCandidates(100))
        .filteredOn(c -> c.payout().accountId().equals(idle))
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.payout().id()).isEqualTo(idleOldest.id());
              assertThat(c.accountPending()).as("the oldest and the newer").isEqualTo(2);
            });
    assertThat(resource.pendingCandidates(100))
        .filteredOn(c -> c.payout().accountId().equals(settledAccount))
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.payout().id()).isEqualTo(settledPending.id());
              assertThat(c.accountPending()).as("a POSTED payout is not pending").isEqualTo(1);
            });
  }

  @Test
  void aPendingCandidateNeedsItsPayoutAndAtLeastItselfPending() {
    assertThatIllegalArgumentException().isThrownBy(() -> new PendingCandidate(null, 1));
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new PendingCandidate(idleOldest, 0))
        .withMessageContaining("at least one");
  }

  @Test
  void theNextPendingPayoutOfAnAccountIsItsOldestUnlessOneIsInFlight() {
    assertThat(resource.nextPending(idle)).map(Payout::id).contains(idleOldest.id());
    assertThat(resource.nextPending(busy)).as("a CLAIMED payout is in flight").isEmpty();
    assertThat(resource.nextPending(ambiguousAccount))
        .as("an ambiguous payout holds its account (FR-23)")
        .isEmpty();
    assertThat(resource.nextPending(AccountId.of("no-such-account"))).isEmpty();
    assertThat(resource.pendingCandidates(100))
        .as("the same choice as the job's page, one account at a time")
        .filteredOn(c -> c.payout().accountId().equals(idle))
        .extracting(c -> c.payout().id())
        .containsExactly(resource.nextPending(idle).orElseThrow().id());
  }

  @Test
  void inFlightListsEveryClaimedButUnfinishedPayout() {
    assertThat(resource.inFlight(100))
        .extracting(Payout::id)
        .containsExactlyInAnyOrder(busyInFlight.id(), ambiguous.id());
    assertThat(resource.inState(PayoutState.RAIL_AMBIGUOUS, 10))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.id()).isEqualTo(ambiguous.id());
              assertThat(p.clientReference()).isEqualTo(ambiguous.id().clientReference());
            });
  }

  @Test
  void theAccountViewShowsBalanceAndFence() {
    AccountView view = resource.account(busy);
    assertThat(view.balanceMinor()).isEqualTo(Scenarios.FUNDING);
    assertThat(view.fence()).isEqualTo(Scenarios.SETUP_TOKEN.value());
    assertThat(view.currency()).isEqualTo("EUR");
  }

  @Test
  void noAccountHasTwoPayoutsInFlightWhenEveryWriterIsFenced() {
    assertThat(resource.accountsWithConcurrentInFlight(10)).isEmpty();
    assertThat(resource.account(idle).fence()).isZero();
    assertThat(FencingToken.of(1).isStaleAgainst(resource.account(busy).fence())).isTrue();
  }
}
