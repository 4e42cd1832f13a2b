package dev.fencepost.railproxy;

/** What the intent transaction decided, before any rail call. */
sealed interface IntentResult {

  /**
   * The intent is committed; the rail may now be called once.
   *
   * @param submissionId the row to record the outcome on
   * @param unguarded true only in the uniqueness negative control: the row is in {@code
   *     unguarded_submission} because the payout already had one
   */
  record Accepted(long submissionId, boolean unguarded) implements IntentResult {}

  /**
   * The token is below the account's high-water (ADR 0046). Nothing but a rejection row written.
   */
  record Stale(long highWater) implements IntentResult {}

  /** The payout already has a submission (FR-18). Nothing but a rejection row written. */
  record Duplicate(SubmissionRecord existing) implements IntentResult {}
}
