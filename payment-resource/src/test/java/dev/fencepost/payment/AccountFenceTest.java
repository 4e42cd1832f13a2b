package dev.fencepost.payment;

import static dev.fencepost.payment.Scenarios.T1;
import static dev.fencepost.payment.Scenarios.T2;
import static dev.fencepost.payment.Scenarios.W1;
import static dev.fencepost.payment.Scenarios.W2;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.lock.FencedOutException;
import dev.fencepost.lock.FencingToken;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The guard (ADR 0036, FR-15, FR-16, INV-05): a token below the account's fence changes nothing and
 * is reported as a first-class outcome; a token equal to it is the same holder writing again.
 */
@Tag("FR-15")
@Tag("FR-16")
@Tag("INV-05")
@Tag("NFR-08")
class AccountFenceTest {

  @RegisterExtension static PaymentFixture fx = PaymentFixture.withLoader("fence");

  @Test
  void staleTokenIsFencedOutAndChangesNothing() {
    Payout claimedByW1 = fx.scenarios().takenOverFromW1();
    var before = fx.paydb().snapshot();

    assertThatThrownBy(() -> fx.resource().markSubmitted(claimedByW1.id(), T1, W1))
        .isInstanceOfSatisfying(
            FencedOutException.class,
            e -> {
              assertThat(e.code()).isEqualTo("STALE_TOKEN");
              assertThat(e.key()).isEqualTo("payout:" + claimedByW1.accountId());
              assertThat(e.presentedToken()).isEqualTo(T1.value());
              assertThat(e.storedFence()).isEqualTo(T2.value());
              assertThat(e.owner()).isEqualTo(W1.id());
            });

    assertThat(fx.paydb().snapshot()).isEqualTo(before);
    assertThat(fx.events().named("lock.fenced_out"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.get("level")).isEqualTo("WARN");
              assertThat(e.get("guard")).isEqualTo("paydb");
              assertThat(e.get("key")).isEqualTo("payout:" + claimedByW1.accountId());
              assertThat(e.get("presentedToken")).isEqualTo(T1.value());
              assertThat(e.get("storedFence")).isEqualTo(T2.value());
              assertThat(e.get("owner")).isEqualTo(W1.id());
              assertThat(e.get("payoutId")).isEqualTo(claimedByW1.id().toString());
            });
    assertThat(
            fx.meters().get("fencepost.fence.rejections").tag("guard", "paydb").counter().count())
        .isEqualTo(1.0);
    assertThat(
            fx.meters()
                .get("fencepost.guard.rejections")
                .tag("guard", "paydb")
                .tag("reason", "stale_token")
                .counter()
                .count())
        .isEqualTo(1.0);
  }

  @Test
  void theSameHolderWritesAgainUnderItsOwnTokenThroughToPosted() {
    Payout pending = fx.scenarios().payoutIn(PayoutState.PENDING);

    fx.resource().claim(pending.id(), T2, W2);
    fx.resource().markSubmitted(pending.id(), T2, W2);
    fx.resource().recordRailAcked(pending.id(), T2, W2, "R-1");
    Payout posted = fx.resource().post(pending.id(), T2, W2);

    assertThat(posted.state()).isEqualTo(PayoutState.POSTED);
    assertThat(fx.paydb().fence(pending.accountId())).isEqualTo(T2.value());
    assertThat(fx.events().named("lock.fenced_out")).isEmpty();
  }

  @Test
  void aStalePauseAfterClaimCannotSubmitOrPostAfterTheNextHolderFinished() {
    // UC-03: W1 claims under T1 and freezes; W2 takes over under T2 and completes the payout.
    Payout payout = fx.scenarios().takenOverFromW1();
    fx.resource().markSubmitted(payout.id(), T2, W2);
    fx.resource().recordRailAcked(payout.id(), T2, W2, "R-2");
    fx.resource().post(payout.id(), T2, W2);
    var before = fx.paydb().snapshot();

    // W1 thaws: every step it could attempt is fenced out, before the state is even looked at.
    for (PayoutEvent step :
        new PayoutEvent[] {PayoutEvent.SUBMIT_ACCEPTED, PayoutEvent.RAIL_ACKED, PayoutEvent.POST}) {
      assertThatThrownBy(() -> Events.invoke(fx.resource(), step, payout.id(), T1, W1))
          .isInstanceOf(FencedOutException.class);
    }

    assertThat(fx.paydb().snapshot()).isEqualTo(before);
    assertThat(fx.events().named("lock.fenced_out")).hasSize(3);
    assertThat(
            fx.paydb()
                .jdbc()
                .sql("SELECT count(*) FROM ledger_group WHERE payout_id = :p")
                .param("p", payout.id().value())
                .query(Long.class)
                .single())
        .isEqualTo(1L);
  }

  @Test
  void theFenceIsPerAccountSoAStaleHolderCannotActOnAnotherPayoutOfTheSameAccount() {
    AccountId account = fx.scenarios().account(Scenarios.FUNDING);
    Payout first = fx.scenarios().pending(account, 100);
    Payout second = fx.scenarios().pending(account, 100);
    fx.resource().claim(first.id(), T2, W2);

    assertThatThrownBy(() -> fx.resource().claim(second.id(), T1, W1))
        .isInstanceOf(FencedOutException.class);
    assertThat(fx.resource().findPayout(second.id()).orElseThrow().state())
        .isEqualTo(PayoutState.PENDING);
  }

  @Test
  void aNewerTokenTakesOverAndAdvancesTheFence() {
    Payout payout = fx.scenarios().payoutIn(PayoutState.CLAIMED);
    FencingToken t3 = FencingToken.of(T2.value() + 1_000_000);

    fx.resource().reclaim(payout.id(), t3, W2);

    assertThat(fx.paydb().fence(payout.accountId())).isEqualTo(t3.value());
    assertThat(fx.resource().account(payout.accountId()).fence()).isEqualTo(t3.value());
  }

  @Test
  void aRefusedTransitionDoesNotAdvanceTheFence() {
    Payout posted = fx.scenarios().payoutIn(PayoutState.POSTED);

    assertThatThrownBy(() -> fx.resource().claim(posted.id(), T2, W2))
        .isInstanceOf(IllegalTransitionException.class);

    assertThat(fx.paydb().fence(posted.accountId())).isEqualTo(T1.value());
  }

  @Test
  void theFenceIsCheckedBeforeTheStateSoAStaleReplayOfAFinishedPayoutIsFencedOut() {
    Payout posted = fx.scenarios().payoutIn(PayoutState.POSTED);
    fx.resource().claim(fx.scenarios().pending(posted.accountId(), 100).id(), T2, W2);

    assertThatThrownBy(() -> fx.resource().claim(posted.id(), T1, W1))
        .isInstanceOf(FencedOutException.class);
    assertThat(fx.events().named("payout.transition_rejected")).isEmpty();
  }
}
