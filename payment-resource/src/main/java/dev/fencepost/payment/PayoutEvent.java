package dev.fencepost.payment;

/**
 * What can happen to a payout (the payout state machine, docs/payment-resource.md, one constant per
 * row that changes paydb). Each has exactly one method on {@link PaymentResource}, except {@link
 * #FUNDS_INSUFFICIENT}, which is what {@link PaymentResource#claim} becomes when the account cannot
 * cover the amount.
 */
public enum PayoutEvent {
  /** A worker claims a pending payout, funds sufficient. */
  CLAIM,
  /** The funds check at claim time failed. */
  FUNDS_INSUFFICIENT,
  /** An operator cancels a payout nobody has claimed yet. */
  OPERATOR_CANCEL,
  /** A later holder takes over a claimed payout after its claimer died (UC-04). */
  RECLAIM,
  /** The rail proxy accepted the submission (its intent record exists, FR-19). */
  SUBMIT_ACCEPTED,
  /** The rail acknowledged: money left. */
  RAIL_ACKED,
  /** The rail declined the payment (business rejection): no money moved. */
  RAIL_DECLINED,
  /** Timeout, connection failure or 5xx on submit: outcome unknown (UC-05). */
  RAIL_TIMEOUT,
  /** A later holder found a submitted payout with no recorded outcome (UC-04). */
  OUTCOME_MISSING,
  /** Both ledger legs and the balance written, fenced on the token (FR-25). */
  POST,
  /** The reconciler's rail lookup found the movement settled. */
  LOOKUP_SETTLED,
  /** The reconciler's rail lookup definitively found nothing, after the settlement window. */
  LOOKUP_ABSENT,
  /** An operator abandons an ambiguous payout past its resolution SLA. */
  OPERATOR_ABANDON
}
