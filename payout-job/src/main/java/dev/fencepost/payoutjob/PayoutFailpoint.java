package dev.fencepost.payoutjob;

import dev.fencepost.payment.Payout;

/**
 * A seam between the steps of one payout, for tests that stop a worker at an exact point (UC-04).
 * Production uses {@link #NONE}; a test bean may throw from {@link #reached} to end the worker's
 * flow there, as a crash would, leaving paydb and proxydb exactly as they are at that point.
 */
@FunctionalInterface
public interface PayoutFailpoint {

  /** The points, in the order a payout passes them. */
  enum Point {
    /** PENDING -> CLAIMED committed; nothing sent yet. */
    CLAIMED,
    /**
     * A recovering holder re-stamped a CLAIMED payout that was never sent; it has not submitted.
     */
    RECLAIMED,
    /** The proxy answered (its intent record exists); paydb still says CLAIMED. */
    PROXY_ANSWERED,
    /** CLAIMED to RAIL_SUBMITTED committed; the rail's outcome is not recorded in paydb yet. */
    SUBMITTED,
    /** RAIL_ACKED committed; the ledger is not posted yet. */
    RAIL_ACKED
  }

  /** Called when {@code payout} has just reached {@code point}. */
  void reached(Point point, Payout payout);

  /** Does nothing: the production binding. */
  PayoutFailpoint NONE = (point, payout) -> {};
}
