package dev.fencepost.payment;

import static dev.fencepost.payment.Scenarios.T1;
import static dev.fencepost.payment.Scenarios.T2;
import static dev.fencepost.payment.Scenarios.W1;
import static dev.fencepost.payment.Scenarios.W2;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.lock.FencedOutException;
import dev.fencepost.lock.FencingToken;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * NFR-07 for INV-01 and INV-05: the same stale writes, once with the resource fence enforced and
 * once under the FR-29 experiment switch. With the fence off they land, and these tests assert that
 * they did: the guard, not luck or the state machine, is what stopped them.
 */
@Tag("FR-29")
@Tag("NFR-07")
@Tag("INV-01")
class FencingDisabledNegativeControlTest {

  @RegisterExtension static PaymentFixture fx = PaymentFixture.withLoader("neg");

  PaymentResource enforced;
  PaymentResource unfenced;

  @BeforeEach
  void setUp() {
    enforced = fx.resource();
    // Switching fencing off is announced at construction; the fixture is already capturing.
    unfenced =
        new PaymentResource(
            fx.dataSource(),
            fx.meters(),
            PaymentResourceOptions.defaults().withFencingMode(FencingMode.EXPERIMENT_DISABLED));
  }

  @Test
  void disablingTheFenceIsAnnouncedLoudlyAndVisibleAsAGauge() {
    assertThat(fx.events().named("fencing.disabled"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.get("level")).isEqualTo("WARN");
              assertThat(e.get("guard")).isEqualTo("paydb");
            });
    SimpleMeterRegistry defaultMeters = new SimpleMeterRegistry();
    new PaymentResource(fx.dataSource(), defaultMeters);
    assertThat(fx.events().named("fencing.disabled")).hasSize(1);
    assertThat(defaultMeters.get("fencepost.fencing.enabled").tag("guard", "paydb").gauge().value())
        .isEqualTo(1.0);
    SimpleMeterRegistry experimentMeters = new SimpleMeterRegistry();
    new PaymentResource(
        fx.dataSource(),
        experimentMeters,
        PaymentResourceOptions.defaults().withFencingMode(FencingMode.EXPERIMENT_DISABLED));
    assertThat(
            experimentMeters.get("fencepost.fencing.enabled").tag("guard", "paydb").gauge().value())
        .isEqualTo(0.0);
  }

  @Test
  void theStaleWriteThatTheFenceRefusesLandsWhenTheFenceIsOff() {
    PayoutId guarded = claimedByW1ThenTakenOverByW2(enforced);
    PayoutId exposed = claimedByW1ThenTakenOverByW2(unfenced);

    // W1 thaws and submits under its stale token T1.
    assertThatThrownBy(() -> enforced.markSubmitted(guarded, T1, W1))
        .isInstanceOf(FencedOutException.class);
    Payout landed = unfenced.markSubmitted(exposed, T1, W1);

    assertThat(enforced.findPayout(guarded).orElseThrow().state()).isEqualTo(PayoutState.CLAIMED);
    assertThat(landed.state()).isEqualTo(PayoutState.RAIL_SUBMITTED);
    assertThat(landed.tokenStamp()).isEqualTo(T1.value());
    // INV-01 broken: the accepted history of this payout goes T1, T2, T1.
    assertThat(tokensOf(exposed)).containsExactly(T1.value(), T2.value(), T1.value());
    assertThat(History.nonDecreasing(tokensOf(exposed))).isFalse();
    assertThat(History.nonDecreasing(tokensOf(guarded))).isTrue();
    // The fence itself never goes down, even in the experiment (GREATEST).
    assertThat(fx.paydb().fence(landed.accountId())).isEqualTo(T2.value());
    assertThat(fx.meters().get("fencepost.fence.rejections").counter().count()).isEqualTo(1.0);
  }

  @Test
  void withTheFenceOffAStaleHolderOverdrawsTheAccountAndTheLedgerRecordsTheDoubleDebit() {
    // UC-03's corrupted-ledger outcome, in paydb: two payouts of one account in flight at once.
    AccountId fencedAccount = accountWithTwoPayouts(enforced);
    AccountId unfencedAccount = accountWithTwoPayouts(unfenced);

    List<Payout> guarded = runStaleSecondClaim(enforced, fencedAccount);
    List<Payout> exposed = runStaleSecondClaim(unfenced, unfencedAccount);

    assertThat(guarded)
        .extracting(Payout::state)
        .containsExactly(PayoutState.POSTED, PayoutState.PENDING);
    assertThat(fx.paydb().balance(fencedAccount)).isEqualTo(3_000 - 2_500);

    assertThat(exposed)
        .extracting(Payout::state)
        .containsExactly(PayoutState.POSTED, PayoutState.POSTED);
    assertThat(fx.paydb().balance(unfencedAccount)).isEqualTo(3_000 - 2 * 2_500);
    // The ledger still balances: fencing, not double entry, is what prevents this (INV-01 vs
    // INV-03).
    assertThat(unfenced.ledgerAudit().driftOf(unfencedAccount)).isEmpty();
  }

  private PayoutId claimedByW1ThenTakenOverByW2(PaymentResource resource) {
    return scenariosOn(resource).takenOverFromW1().id();
  }

  private AccountId accountWithTwoPayouts(PaymentResource resource) {
    Scenarios scenarios = scenariosOn(resource);
    AccountId account = scenarios.account(3_000);
    scenarios.pending(account, 2_500);
    scenarios.pending(account, 2_500);
    return account;
  }

  private static Scenarios scenariosOn(PaymentResource resource) {
    return new Scenarios(resource, new PayoutIntake(fx.dataSource(), "neg"));
  }

  /**
   * W2 (T2) claims the first payout; W1, stale with T1 but believing it still holds the lock,
   * claims the second: its funds check sees the balance before W2's debit. Then both post.
   */
  private List<Payout> runStaleSecondClaim(PaymentResource resource, AccountId account) {
    List<PayoutId> ids =
        fx.paydb()
            .jdbc()
            .sql("SELECT id FROM payout WHERE account_id = :a ORDER BY created_at, id")
            .param("a", account.value())
            .query((rs, n) -> PayoutId.of(rs.getObject(1, java.util.UUID.class)))
            .list();
    resource.claim(ids.get(0), T2, W2);
    boolean staleClaimLanded;
    try {
      resource.claim(ids.get(1), T1, W1);
      staleClaimLanded = true;
    } catch (FencedOutException e) {
      staleClaimLanded = false;
    }
    completeFromClaimed(resource, ids.get(0), T2, W2);
    if (staleClaimLanded) {
      completeFromClaimed(resource, ids.get(1), T1, W1);
    }
    return ids.stream().map(id -> resource.findPayout(id).orElseThrow()).toList();
  }

  private static void completeFromClaimed(
      PaymentResource resource, PayoutId id, FencingToken token, Actor worker) {
    resource.markSubmitted(id, token, worker);
    resource.recordRailAcked(id, token, worker, "R-" + id);
    resource.post(id, token, worker);
  }

  private List<Long> tokensOf(PayoutId payout) {
    return fx.paydb().auditOf(payout).stream()
        .map(row -> (Long) row.get("fencing_token"))
        .filter(token -> token != null)
        .toList();
  }
}
