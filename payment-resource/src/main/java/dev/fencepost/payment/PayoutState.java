package dev.fencepost.payment;

/**
 * The states of a payout (the payout state machine, docs/payment-resource.md). Which transitions
 * connect them is {@link PayoutTransitions}, and only there.
 */
public enum PayoutState {
  /** Created, waiting for a worker. Many may exist per account. */
  PENDING,
  /** A worker holding the account's lock passed the funds check and owns the payout. */
  CLAIMED,
  /** Handed to the rail proxy; its outcome is not recorded yet. Never resubmitted. */
  RAIL_SUBMITTED,
  /** The rail moved the money; only the ledger posting is missing. Safe to retry forever. */
  RAIL_ACKED,
  /** Nobody knows whether money moved. Never resubmitted; resolved by evidence (UC-05). */
  RAIL_AMBIGUOUS,
  /** Terminal: money moved and the ledger records it. */
  POSTED,
  /** Terminal: no money moved (insufficient funds, rail decline, or lookup found nothing). */
  FAILED,
  /** Terminal: an operator gave up on it with a recorded reason; handed to finance. */
  ABANDONED;

  /** Terminal states have no outgoing transitions at all (INV-08). */
  public boolean isTerminal() {
    return this == POSTED || this == FAILED || this == ABANDONED;
  }

  /**
   * Claimed and not yet terminal: a worker (or the reconciler) still owes this payout an ending. At
   * most one payout per account should be in this set at a time, which the lock ensures.
   */
  public boolean isInFlight() {
    return this == CLAIMED
        || this == RAIL_SUBMITTED
        || this == RAIL_ACKED
        || this == RAIL_AMBIGUOUS;
  }
}
