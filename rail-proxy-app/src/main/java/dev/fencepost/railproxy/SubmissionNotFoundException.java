package dev.fencepost.railproxy;

/** 404 {@code SUBMISSION_NOT_FOUND}: the payout was never submitted through this proxy. */
public class SubmissionNotFoundException extends RuntimeException {

  public SubmissionNotFoundException(String payoutId) {
    super("no submission for payout " + payoutId);
  }
}
