package dev.fencepost.payoutjob;

/** What one attempt at one payout ended with; a bounded set, so it may tag a metric (NFR-09). */
public enum PayoutOutcome {
  /** Rail acknowledged and the ledger posted (UC-01 main flow), or a recovery completed it. */
  POSTED,
  /** Balance below the amount at claim: FAILED without a rail call (UC-01 alternate). */
  FAILED_INSUFFICIENT_FUNDS,
  /** The rail declined: FAILED, no ledger movement. */
  FAILED_DECLINED,
  /** Timeout or unknown outcome: RAIL_AMBIGUOUS, never resubmitted (UC-05, FR-23). */
  AMBIGUOUS,
  /**
   * The proxy's record under this payout's id carries another account, amount, currency,
   * beneficiary or client reference: RAIL_AMBIGUOUS, left for an operator (ADR 0140).
   */
  CONTENT_MISMATCH,
  /** The re-read inside the grant found it terminal: someone else finished it (FR-14, UC-02). */
  ALREADY_TERMINAL,
  /** The re-read found it RAIL_AMBIGUOUS: nothing for a worker to do (FR-23). */
  LEFT_AMBIGUOUS,
  /** Another worker holds the account's lock: skipped for this run (UC-02). */
  SKIPPED_LOCK_HELD,
  /** A guard refused our token: aborted at once, never retried under that token (UC-03). */
  FENCED_OUT,
  /** The local lease deadline passed before a side effect: aborted (FR-12, FR-13). */
  LOCK_LOST,
  /**
   * Nothing decided: the proxy was unreachable or did not record an intent; a later run recovers.
   */
  DEFERRED
}
