package dev.fencepost.railproxy;

/** 409 {@code DUPLICATE_SUBMISSION}: the payout already has a submission (FR-18, INV-02). */
public class DuplicateSubmissionException extends RuntimeException {

  private final SubmissionRecord existing;

  public DuplicateSubmissionException(SubmissionRecord existing) {
    super(
        "payout "
            + existing.payoutId()
            + " was already submitted (submission "
            + existing.id()
            + ")");
    this.existing = existing;
  }

  public SubmissionRecord existing() {
    return existing;
  }
}
