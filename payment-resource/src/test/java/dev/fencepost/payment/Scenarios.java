package dev.fencepost.payment;

import dev.fencepost.lock.FencingToken;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Arranges accounts and payouts in a given state by driving them through the real transitions,
 * under token {@link #SETUP_TOKEN}. Tests then act with tokens above it (or below, for staleness).
 */
final class Scenarios {

  static final FencingToken SETUP_TOKEN = FencingToken.of(10);
  static final long FUNDING = 100_000;
  static final long AMOUNT = 2_500;
  static final Actor SETUP_WORKER = Actor.worker("setup-worker");
  static final Actor SETUP_OPERATOR = Actor.operator("setup-operator");

  // UC-03's cast, for the tests that replay a takeover: W1 arranged the payouts under T1 and froze;
  // its lease expired and W2 took over under T2 (not T1 + 1: tokens only need to increase).
  static final Actor W1 = SETUP_WORKER;
  static final FencingToken T1 = SETUP_TOKEN;
  static final Actor W2 = Actor.worker("w2");
  static final FencingToken T2 = FencingToken.of(T1.value() + 7);

  private static final AtomicInteger SEQUENCE = new AtomicInteger();

  private final PaymentResource resource;
  private final PayoutIntake intake;

  Scenarios(PaymentResource resource, PayoutIntake intake) {
    this.resource = resource;
    this.intake = intake;
  }

  /** A fresh customer account with {@code funding} minor units. */
  AccountId account(long funding) {
    AccountId id = AccountId.of("acc-" + SEQUENCE.incrementAndGet());
    intake.createAccount(id, funding);
    return id;
  }

  Payout pending(AccountId account, long amount) {
    return intake.createPendingPayout(account, amount, "EUR", "bene-" + SEQUENCE.get());
  }

  /**
   * A payout of {@link #AMOUNT} on a fresh account funded with {@link #FUNDING}, in {@code state}.
   */
  Payout payoutIn(PayoutState state) {
    return payoutIn(state, account(FUNDING));
  }

  /**
   * UC-03's takeover: a payout W1 claimed under T1 and, once W1's lease expired, W2 reclaimed under
   * T2; as W2 left it. W1, frozen meanwhile, does not know.
   */
  Payout takenOverFromW1() {
    return resource.reclaim(payoutIn(PayoutState.CLAIMED).id(), T2, W2);
  }

  Payout payoutIn(PayoutState state, AccountId account) {
    return payoutIn(state, account, PayoutId.random());
  }

  /** The same under an id of the caller's (one whose posting lands on a chosen balance slot). */
  Payout payoutIn(PayoutState state, AccountId account, PayoutId payoutId) {
    PayoutId id =
        intake.createPendingPayout(payoutId, account, AMOUNT, "EUR", "bene-" + SEQUENCE.get()).id();
    FencingToken t = SETUP_TOKEN;
    Actor w = SETUP_WORKER;
    switch (state) {
      case PENDING -> {}
      case CLAIMED -> resource.claim(id, t, w);
      case RAIL_SUBMITTED -> {
        resource.claim(id, t, w);
        resource.markSubmitted(id, t, w);
      }
      case RAIL_ACKED -> {
        resource.claim(id, t, w);
        resource.markSubmitted(id, t, w);
        resource.recordRailAcked(id, t, w, "rail-" + id);
      }
      case RAIL_AMBIGUOUS -> {
        resource.claim(id, t, w);
        resource.markSubmitted(id, t, w);
        resource.recordRailTimeout(id, t, w, "read timeout after 10s");
      }
      case POSTED -> {
        resource.claim(id, t, w);
        resource.markSubmitted(id, t, w);
        resource.recordRailAcked(id, t, w, "rail-" + id);
        resource.post(id, t, w);
      }
      case FAILED -> {
        resource.claim(id, t, w);
        resource.markSubmitted(id, t, w);
        resource.recordRailDeclined(id, t, w, "AC04");
      }
      case ABANDONED -> resource.cancel(id, t, SETUP_OPERATOR, "duplicate instruction upstream");
    }
    Payout payout = resource.findPayout(id).orElseThrow();
    if (payout.state() != state) {
      throw new IllegalStateException("could not arrange " + state + ", got " + payout.state());
    }
    return payout;
  }
}
