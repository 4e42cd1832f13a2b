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
    /**
     * CLAIMED to RAIL_SUBMITTED committed; the rail's outcome is not recorded in paydb yet. Reached
     * on a decline or a timeout, and on an acknowledgement only by a failpoint that {@link
     * #stepsThroughSettlement}.
     */
    SUBMITTED,
    /**
     * RAIL_ACKED committed; the ledger is not posted yet. Reached when a worker finds a payout
     * RAIL_ACKED, after a refused settlement, and by a failpoint that {@link
     * #stepsThroughSettlement}.
     */
    RAIL_ACKED;

    /**
     * Whether a settlement in one transaction (ADR 0219) passes this point without committing it,
     * so that a failpoint stopping here must {@link PayoutFailpoint#stepsThroughSettlement}.
     */
    public boolean passedBySettlement() {
      return this == SUBMITTED || this == RAIL_ACKED;
    }
  }

  /** Called when {@code payout} has just reached {@code point}. */
  void reached(Point point, Payout payout);

  /**
   * Whether the worker should commit {@link Point#SUBMITTED} and {@link Point#RAIL_ACKED} one at a
   * time, as it does when a settlement is refused, so that this failpoint can stop it there. A
   * worker settles an acknowledged payout in one transaction (ADR 0219), which passes both points
   * without committing either; a failpoint that stops at one of them returns true.
   */
  default boolean stepsThroughSettlement() {
    return false;
  }

  /** Does nothing: the production binding. */
  PayoutFailpoint NONE = (point, payout) -> {};
}
