package dev.fencepost.payment;

import static dev.fencepost.payment.Actor.Role.OPERATOR;
import static dev.fencepost.payment.Actor.Role.RECONCILER;
import static dev.fencepost.payment.Actor.Role.WORKER;
import static dev.fencepost.payment.PayoutEvent.CLAIM;
import static dev.fencepost.payment.PayoutEvent.FUNDS_INSUFFICIENT;
import static dev.fencepost.payment.PayoutEvent.LOOKUP_ABSENT;
import static dev.fencepost.payment.PayoutEvent.LOOKUP_SETTLED;
import static dev.fencepost.payment.PayoutEvent.OPERATOR_ABANDON;
import static dev.fencepost.payment.PayoutEvent.OPERATOR_CANCEL;
import static dev.fencepost.payment.PayoutEvent.OUTCOME_MISSING;
import static dev.fencepost.payment.PayoutEvent.POST;
import static dev.fencepost.payment.PayoutEvent.RAIL_DECLINED;
import static dev.fencepost.payment.PayoutEvent.RAIL_TIMEOUT;
import static dev.fencepost.payment.PayoutEvent.RECLAIM;
import static dev.fencepost.payment.PayoutEvent.SUBMIT_ACCEPTED;
import static dev.fencepost.payment.PayoutState.ABANDONED;
import static dev.fencepost.payment.PayoutState.CLAIMED;
import static dev.fencepost.payment.PayoutState.FAILED;
import static dev.fencepost.payment.PayoutState.PENDING;
import static dev.fencepost.payment.PayoutState.POSTED;
import static dev.fencepost.payment.PayoutState.RAIL_ACKED;
import static dev.fencepost.payment.PayoutState.RAIL_AMBIGUOUS;
import static dev.fencepost.payment.PayoutState.RAIL_SUBMITTED;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The payout state machine, in full (FR-22, INV-08). This file is the only place that says which
 * transitions exist; the executor asks it and nothing else.
 *
 * <p>The table is total: for every (state, event) pair it either lists exactly one row or the pair
 * is refused. A row also names the one role that may trigger it. Terminal states (POSTED, FAILED,
 * ABANDONED) appear in no "from" column, so nothing ever leaves them, not a worker, not the
 * reconciler, not an operator. Each event has exactly one row, so an event alone names the state a
 * payout must be in for it ({@link #forEvent}); paydb checks that state in the statement that makes
 * the move (docs/decisions/0216).
 *
 * <p>Rows of the state machine that change nothing in paydb (the proxy refusing a stale token or a
 * duplicate, a posting that is fenced out) are not events here: they are refusals that leave the
 * payout where it is. docs/payment-resource.md maps every row to what this code does.
 */
public final class PayoutTransitions {

  /**
   * One allowed transition.
   *
   * @param from the state the payout must be in
   * @param event what happens
   * @param to the state it moves to
   * @param trigger the only role that may trigger it
   */
  public record Transition(
      PayoutState from, PayoutEvent event, PayoutState to, Actor.Role trigger) {}

  /** Why a pair was refused. */
  public enum Refusal {
    /** The (state, event) pair is not in the table. */
    NOT_IN_TABLE,
    /** The pair is in the table, but for another role. */
    ROLE_NOT_PERMITTED
  }

  // The whole table, in the order of docs/payment-resource.md.
  private static final List<Transition> ROWS =
      List.of(
          row(PENDING, CLAIM, CLAIMED, WORKER),
          row(PENDING, FUNDS_INSUFFICIENT, FAILED, WORKER),
          row(PENDING, OPERATOR_CANCEL, ABANDONED, OPERATOR),
          row(CLAIMED, RECLAIM, CLAIMED, WORKER),
          row(CLAIMED, SUBMIT_ACCEPTED, RAIL_SUBMITTED, WORKER),
          row(RAIL_SUBMITTED, PayoutEvent.RAIL_ACKED, RAIL_ACKED, WORKER),
          row(RAIL_SUBMITTED, RAIL_DECLINED, FAILED, WORKER),
          row(RAIL_SUBMITTED, RAIL_TIMEOUT, RAIL_AMBIGUOUS, WORKER),
          row(RAIL_SUBMITTED, OUTCOME_MISSING, RAIL_AMBIGUOUS, WORKER),
          row(RAIL_ACKED, POST, POSTED, WORKER),
          row(RAIL_AMBIGUOUS, LOOKUP_SETTLED, RAIL_ACKED, RECONCILER),
          row(RAIL_AMBIGUOUS, LOOKUP_ABSENT, FAILED, RECONCILER),
          row(RAIL_AMBIGUOUS, OPERATOR_ABANDON, ABANDONED, OPERATOR));

  private static final Map<PayoutState, Map<PayoutEvent, Transition>> INDEX = index(ROWS);

  private static final Map<PayoutEvent, Transition> BY_EVENT = byEvent(ROWS);

  private PayoutTransitions() {}

  /** Every allowed transition, in the table's order. */
  public static List<Transition> rows() {
    return ROWS;
  }

  /** The row for this pair, whoever may trigger it; empty when the pair is refused. */
  public static Optional<Transition> find(PayoutState from, PayoutEvent event) {
    return Optional.ofNullable(INDEX.get(from).get(event));
  }

  /**
   * The one row of {@code event}: the state it leaves, the state it reaches, who may ask for it.
   */
  public static Transition forEvent(PayoutEvent event) {
    return BY_EVENT.get(event);
  }

  /** Why {@code role} may not trigger {@code event} in {@code from}; empty when it may. */
  public static Optional<Refusal> refusal(PayoutState from, PayoutEvent event, Actor.Role role) {
    Transition row = INDEX.get(from).get(event);
    if (row == null) {
      return Optional.of(Refusal.NOT_IN_TABLE);
    }
    return row.trigger() == role ? Optional.empty() : Optional.of(Refusal.ROLE_NOT_PERMITTED);
  }

  /** True when some event leads out of {@code state}; false exactly for the terminal states. */
  public static boolean hasOutgoing(PayoutState state) {
    return !INDEX.get(state).isEmpty();
  }

  private static Transition row(
      PayoutState from, PayoutEvent event, PayoutState to, Actor.Role by) {
    return new Transition(from, event, to, by);
  }

  private static Map<PayoutState, Map<PayoutEvent, Transition>> index(List<Transition> rows) {
    Map<PayoutState, Map<PayoutEvent, Transition>> index = new EnumMap<>(PayoutState.class);
    for (PayoutState state : PayoutState.values()) {
      index.put(state, new EnumMap<>(PayoutEvent.class));
    }
    for (Transition row : rows) {
      if (index.get(row.from()).put(row.event(), row) != null) {
        throw new IllegalStateException("two rows for " + row.from() + " + " + row.event());
      }
      if (row.from().isTerminal()) {
        throw new IllegalStateException("a terminal state has a row: " + row);
      }
    }
    index.replaceAll((state, events) -> Map.copyOf(events));
    return Map.copyOf(index);
  }

  private static Map<PayoutEvent, Transition> byEvent(List<Transition> rows) {
    Map<PayoutEvent, Transition> byEvent = new EnumMap<>(PayoutEvent.class);
    for (Transition row : rows) {
      if (byEvent.put(row.event(), row) != null) {
        // paydb moves a payout by the event's one from-state without reading it first (ADR 0216).
        throw new IllegalStateException("two rows for event " + row.event());
      }
    }
    if (byEvent.size() != PayoutEvent.values().length) {
      throw new IllegalStateException("an event without a row: " + byEvent.keySet());
    }
    return Map.copyOf(byEvent);
  }
}
