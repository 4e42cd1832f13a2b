package dev.fencepost.payment.impl;

import dev.fencepost.lock.FencedOutException;
import dev.fencepost.lock.FencingToken;
import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.Actor;
import dev.fencepost.payment.ClaimAttempt;
import dev.fencepost.payment.IllegalTransitionException;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutEvent;
import dev.fencepost.payment.PayoutId;
import dev.fencepost.payment.PayoutNotFoundException;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payment.PayoutTransitions;
import dev.fencepost.payment.PayoutTransitions.Refusal;
import dev.fencepost.payment.PayoutTransitions.Transition;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Applies one payout event in one transaction, in this order:
 *
 * <ol>
 *   <li>{@link AccountFence#advance}: the guard, before anything else (ADR 0036), on the account
 *       the payout names (immutable, so the statement finds it itself; ADR 0204);
 *   <li>for a claim or a posting, re-read the payout: the account row lock taken by the fence now
 *       serialises every writer of this account, so this is the current state (FR-14). A claim
 *       needs it for the funds check (A-09: CLAIM becomes FUNDS_INSUFFICIENT when the balance
 *       cannot cover the amount), a posting for the amounts of its ledger legs;
 *   <li>ask {@link PayoutTransitions}; refuse anything it does not list (FR-22, INV-08);
 *   <li>the event's side effect (the ledger posting for POST);
 *   <li>one statement updates the payout conditional on the from-state and writes the audit row
 *       (FR-30) from the row it moved.
 * </ol>
 *
 * Every other event reads nothing first (ADR 0216): each event leaves exactly one state ({@link
 * PayoutTransitions#forEvent}), so the conditional update is itself the state check, made under the
 * same account lock. Only when it moves nothing, or the actor's role is not the event's, is the
 * payout read, to refuse exactly as the table says.
 *
 * <p>{@link #settle} applies the three events that follow a rail's acknowledgement in one such
 * transaction, under one fence advance, each with its own conditional update and audit row (ADR
 * 0219).
 *
 * <p>Any refusal throws, and the transaction rolls back, including the fence advance: a refused
 * call leaves paydb exactly as it was. Events and counters are emitted after the outcome is final.
 */
public final class PayoutEngine {

  private final Transactions transactions;
  private final AccountFence fence;
  private final Payouts payouts;
  private final Accounts accounts;
  private final Ledger ledger;
  private final PaymentSignals signals;

  public PayoutEngine(
      Transactions transactions,
      AccountFence fence,
      Payouts payouts,
      Accounts accounts,
      Ledger ledger,
      PaymentSignals signals) {
    this.transactions = transactions;
    this.fence = fence;
    this.payouts = payouts;
    this.accounts = accounts;
    this.ledger = ledger;
    this.signals = signals;
  }

  private record Outcome(Payout payout, Transition transition) {}

  /**
   * Thrown inside the transaction of {@link #claimIfPending} to roll it back, fence advance
   * included, when the payout is no longer PENDING; never leaves this class.
   */
  private static final class NotPending extends RuntimeException {
    private final transient Payout current;

    NotPending(Payout current) {
      super(null, null, false, false); // control flow: no stack trace
      this.current = current;
    }
  }

  /**
   * CLAIM if the payout is PENDING, as {@link #apply} does it; otherwise rolls back (the fence
   * advance too) and returns the payout as it found it, with no rejection signalled: for a caller
   * that holds the account's grant and a snapshot saying PENDING, another state is news, not a
   * refusal (ADR 0218). The state is read under the account row lock the fence advance takes, so it
   * is as current as a re-read inside the grant.
   */
  public ClaimAttempt claimIfPending(PayoutId id, FencingToken token, Actor actor) {
    try {
      return new ClaimAttempt(apply(id, PayoutEvent.CLAIM, token, actor, null, true), true);
    } catch (NotPending e) {
      return new ClaimAttempt(e.current, false);
    }
  }

  /**
   * @param detail the event's required text (rail reference, decline code, reason), already
   *     validated by the caller; null for events that take none
   */
  public Payout apply(
      PayoutId id, PayoutEvent event, FencingToken token, Actor actor, String detail) {
    return apply(id, event, token, actor, detail, false);
  }

  private Payout apply(
      PayoutId id,
      PayoutEvent event,
      FencingToken token,
      Actor actor,
      String detail,
      boolean onlyIfPending) {
    return applyAll(
            id,
            token,
            actor,
            account ->
                List.of(underFence(account, id, event, token, actor, detail, onlyIfPending, null)))
        .payout();
  }

  /**
   * The rail acknowledged a payout held CLAIMED (or found RAIL_SUBMITTED): SUBMIT_ACCEPTED if it is
   * CLAIMED, then RAIL_ACKED with {@code railReference}, then POST, in one transaction under one
   * fence advance (ADR 0219). Each is the transition {@link #apply} would make, with its audit row
   * and, after the commit, its event. A payout in any other state is refused as RAIL_ACKED alone
   * would refuse it, and nothing changes.
   */
  public Payout settle(PayoutId id, FencingToken token, Actor actor, String railReference) {
    return applyAll(
            id,
            token,
            actor,
            account -> {
              List<Outcome> moves = new ArrayList<>(3);
              Transition submitted = PayoutTransitions.forEvent(PayoutEvent.SUBMIT_ACCEPTED);
              if (submitted.trigger() == actor.role()) {
                // Moves nothing from RAIL_SUBMITTED, which RAIL_ACKED then takes as it is.
                move(id, submitted, token, actor, null)
                    .ifPresent(payout -> moves.add(new Outcome(payout, submitted)));
              }
              Outcome acked =
                  underFence(
                      account,
                      id,
                      PayoutEvent.RAIL_ACKED,
                      token,
                      actor,
                      railReference,
                      false,
                      null);
              moves.add(acked);
              // The row RAIL_ACKED returned is current: the fence holds the account's row lock.
              moves.add(
                  underFence(
                      account, id, PayoutEvent.POST, token, actor, null, false, acked.payout()));
              return moves;
            })
        .payout();
  }

  /** The transitions of one transaction, made after its fence advance; their outcomes in order. */
  private interface Moves {
    List<Outcome> under(AccountId account);
  }

  /**
   * Advances the fence, makes {@code moves} in the same transaction, and signals each transition
   * after the commit, or the refusal after the rollback.
   *
   * @return the last outcome
   */
  private Outcome applyAll(PayoutId id, FencingToken token, Actor actor, Moves moves) {
    List<Outcome> outcomes;
    try {
      outcomes =
          transactions.inTransaction(() -> moves.under(fence.advance(id, token, actor.id())));
    } catch (FencedOutException e) {
      signals.fencedOut(e, id);
      throw e;
    } catch (IllegalTransitionException e) {
      signals.transitionRejected(e, token, actor);
      throw e;
    }
    for (Outcome outcome : outcomes) {
      signals.transition(outcome.transition(), id, outcome.payout().accountId(), token, actor);
    }
    return outcomes.get(outcomes.size() - 1);
  }

  /**
   * One event, after the fence advance of its transaction.
   *
   * @param known the payout as this transaction last moved it, or null to read it where needed
   */
  private Outcome underFence(
      AccountId account,
      PayoutId id,
      PayoutEvent requested,
      FencingToken token,
      Actor actor,
      String detail,
      boolean onlyIfPending,
      Payout known) {
    Transition expected = PayoutTransitions.forEvent(requested);
    if (!readsThePayoutFirst(requested) && expected.trigger() == actor.role()) {
      Optional<Payout> moved = move(id, expected, token, actor, detail);
      if (moved.isPresent()) {
        return new Outcome(moved.get(), expected);
      }
      // Not in the event's from-state: the read below finds where it is and refuses.
    }

    Payout current =
        known != null ? known : payouts.find(id).orElseThrow(() -> new PayoutNotFoundException(id));
    if (onlyIfPending
        && current.state() != PayoutState.PENDING
        && expected.trigger() == actor.role()) {
      throw new NotPending(current);
    }

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
        move(id, transition, token, actor, reason)
            .orElseThrow(
                // Unreachable while the fence holds the account row: nobody else can move it.
                () ->
                    new IllegalStateException(
                        "payout " + id + " left " + transition.from() + " under the account lock"));
    return new Outcome(moved, transition);
  }

  /**
   * A claim's funds check and a posting's ledger legs need the payout as it is; every other event
   * needs only its from-state, which the conditional update checks itself.
   */
  private static boolean readsThePayoutFirst(PayoutEvent event) {
    return event == PayoutEvent.CLAIM || event == PayoutEvent.POST;
  }

  private Optional<Payout> move(
      PayoutId id, Transition transition, FencingToken token, Actor actor, String reason) {
    PayoutEvent event = transition.event();
    return payouts.transition(
        id,
        transition.from(),
        transition.to(),
        token,
        change(transition, actor, reason),
        new Payouts.Audit(
            actor.role().name(),
            actor.id(),
            event.name(),
            isSettlement(event) ? "rail reference " + reason : reason));
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
