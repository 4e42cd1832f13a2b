package dev.fencepost.payment.impl;

import dev.fencepost.lock.FencedOutException;
import dev.fencepost.lock.FencingToken;
import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.Actor;
import dev.fencepost.payment.IllegalTransitionException;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutEvent;
import dev.fencepost.payment.PayoutId;
import dev.fencepost.payment.PayoutNotFoundException;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payment.PayoutTransitions;
import dev.fencepost.payment.PayoutTransitions.Refusal;
import dev.fencepost.payment.PayoutTransitions.Transition;
import java.util.Optional;

/**
 * Applies one payout event in one transaction, in this order:
 *
 * <ol>
 *   <li>{@link AccountFence#advance}: the guard, before anything else (ADR 0036), on the account
 *       the payout names (immutable, so the statement finds it itself; ADR 0204);
 *   <li>re-read the payout: the account row lock taken by the fence now serialises every writer of
 *       this account, so this is the current state (FR-14);
 *   <li>for a claim, the funds check: CLAIM becomes FUNDS_INSUFFICIENT when the balance
 *       cannot cover the amount;
 *   <li>ask {@link PayoutTransitions}; refuse anything it does not list (FR-22, INV-08);
 *   <li>the event's side effect (the ledger posting for POST);
 *   <li>update the payout conditional on the expected from-state (the statement returns the new
 *       row), and write the audit row (FR-30).
 * </ol>
 *
 * Any refusal throws, and the transaction rolls back, including the fence advance: a refused call
 * leaves paydb exactly as it was. Events and counters are emitted after the outcome is final.
 */
public final class PayoutEngine {

  private final Transactions transactions;
  private final AccountFence fence;
  private final Payouts payouts;
  private final Accounts accounts;
  private final Ledger ledger;
  private final AuditLog audit;
  private final PaymentSignals signals;

  public PayoutEngine(
      Transactions transactions,
      AccountFence fence,
      Payouts payouts,
      Accounts accounts,
      Ledger ledger,
      AuditLog audit,
      PaymentSignals signals) {
    this.transactions = transactions;
    this.fence = fence;
    this.payouts = payouts;
    this.accounts = accounts;
    this.ledger = ledger;
    this.audit = audit;
    this.signals = signals;
  }

  private record Outcome(Payout payout, Transition transition) {}

  /**
   * @param detail the event's required text (rail reference, decline code, reason), already
   *     validated by the caller; null for events that take none
   */
  public Payout apply(
      PayoutId id, PayoutEvent event, FencingToken token, Actor actor, String detail) {
    Outcome outcome;
    try {
      outcome = transactions.inTransaction(() -> applyFenced(id, event, token, actor, detail));
    } catch (FencedOutException e) {
      signals.fencedOut(e, id);
      throw e;
    } catch (IllegalTransitionException e) {
      signals.transitionRejected(e, token, actor);
      throw e;
    }
    signals.transition(outcome.transition(), id, outcome.payout().accountId(), token, actor);
    return outcome.payout();
  }

  private Outcome applyFenced(
      PayoutId id, PayoutEvent requested, FencingToken token, Actor actor, String detail) {
    AccountId account = fence.advance(id, token, actor.id());
    Payout current = payouts.find(id).orElseThrow(() -> new PayoutNotFoundException(id));

    PayoutEvent event = requested;
    String reason = detail;
    if (requested == PayoutEvent.CLAIM && current.state() == PayoutState.PENDING) {
      long available = accounts.find(account).orElseThrow().balanceMinor();
      if (available < current.amountMinor()) {
        event = PayoutEvent.FUNDS_INSUFFICIENT;
        reason =
            "insufficient funds at claim time: available "
                + available
                + ", required "
                + current.amountMinor();
      }
    }

    Optional<Refusal> refusal = PayoutTransitions.refusal(current.state(), event, actor.role());
    if (refusal.isPresent()) {
      throw new IllegalTransitionException(
          id, account, current.state(), event, actor.role(), refusal.get());
    }
    Transition transition = PayoutTransitions.find(current.state(), event).orElseThrow();

    if (event == PayoutEvent.POST) {
      ledger.postPayout(current, token, actor.id());
    }
    Payout moved =
        payouts
            .transition(
                id, transition.from(), transition.to(), token, change(transition, actor, reason))
            .orElseThrow(
                // Unreachable while the fence holds the account row: nobody else can move it.
                () ->
                    new IllegalStateException(
                        "payout " + id + " left " + transition.from() + " under the account lock"));
    audit.record(
        actor.role().name(),
        actor.id(),
        token.value(),
        account,
        id,
        event.name(),
        transition.from(),
        transition.to(),
        isSettlement(event) ? "rail reference " + reason : reason);
    return new Outcome(moved, transition);
  }

  private static boolean isSettlement(PayoutEvent event) {
    return event == PayoutEvent.RAIL_ACKED || event == PayoutEvent.LOOKUP_SETTLED;
  }

  private static Payouts.Change change(Transition transition, Actor actor, String reason) {
    PayoutEvent event = transition.event();
    PayoutState to = transition.to();
    boolean claims = event == PayoutEvent.CLAIM || event == PayoutEvent.RECLAIM;
    boolean settles = isSettlement(event);
    String failure = null;
    if (to == PayoutState.FAILED || to == PayoutState.ABANDONED) {
      failure =
          switch (event) {
            case RAIL_DECLINED -> "rail declined: " + reason;
            case LOOKUP_ABSENT -> "rail lookup found no movement: " + reason;
            case OPERATOR_CANCEL, OPERATOR_ABANDON -> "operator " + actor.id() + ": " + reason;
            default -> reason;
          };
    }
    return new Payouts.Change(
        claims ? actor.id() : null,
        event == PayoutEvent.SUBMIT_ACCEPTED,
        settles ? reason : null,
        failure,
        to.isTerminal());
  }
}
