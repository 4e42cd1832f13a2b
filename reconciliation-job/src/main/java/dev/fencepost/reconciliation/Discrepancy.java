package dev.fencepost.reconciliation;

/**
 * Every class of discrepancy the reconciler reports (FR-26). The set is closed: each run reports a
 * count for every class, zero included (UC-07). The name is stable; it is a log field, a metric tag
 * and a paydb value. Why each class has its severity: ADR 0070.
 */
public enum Discrepancy {
  /** More than one rail movement for one client reference: a duplicate payment (INV-02). */
  DUPLICATE_SUBMISSION(Severity.PAGE),
  /**
   * Money left on the rail with no proxy submission behind it: a path around both guards (INV-07).
   */
  RAIL_MOVEMENT_WITHOUT_SUBMISSION(Severity.PAGE),
  /**
   * The rail took the money (proxy ACKED, or the rail's statement shows the movement) and paydb has
   * no posting, outside the short grace a RAIL_ACKED payout gets to be posted by a worker (ADR
   * 0070).
   */
  SUBMISSION_WITHOUT_POSTING(Severity.PAGE),
  /** A ledger posting with no proxy submission that the rail acknowledged (INV-03, INV-07). */
  POSTING_WITHOUT_SUBMISSION(Severity.PAGE),
  /** A balance that is not its ledger sum, a group that does not sum to zero, or Σ ledger ≠ 0. */
  LEDGER_IMBALANCE(Severity.PAGE),
  /**
   * The proxy's submission under a payout's id carries another account, amount, currency,
   * beneficiary or client reference than the paydb payout: somebody else used the id, and the money
   * may have gone elsewhere (ADR 0140). Also the resolver's refusal to resolve such a payout.
   */
  SUBMISSION_CONTENT_MISMATCH(Severity.PAGE),
  /**
   * A statement entry whose amount, currency or beneficiary is not the payout's its EndToEndId
   * names: the money went elsewhere, or in another amount, under one of our payouts (ADR 0178).
   */
  MOVEMENT_CONTENT_MISMATCH(Severity.PAGE),
  /**
   * A statement entry whose EndToEndId names no payout of paydb: money left for nothing we know
   * (ADR 0178).
   */
  MOVEMENT_WITHOUT_PAYOUT(Severity.PAGE),
  /**
   * A statement entry for a payout still CLAIMED, RAIL_SUBMITTED or RAIL_AMBIGUOUS once the
   * settlement window has passed since the entry was booked: the money left and paydb has not
   * caught up; a person finishes it (ADR 0178).
   */
  MOVEMENT_FOR_UNSETTLED_PAYOUT(Severity.TICKET),
  /** More than one non-terminal payout in flight for one account (A-15, INV-01's detective). */
  CONCURRENT_IN_FLIGHT(Severity.PAGE),
  /** RAIL_AMBIGUOUS for longer than the resolution SLA: hand to finance (UC-05 step 6). */
  AMBIGUOUS_BEYOND_SLA(Severity.TICKET);

  private final Severity severity;

  Discrepancy(Severity severity) {
    this.severity = severity;
  }

  public Severity severity() {
    return severity;
  }
}
