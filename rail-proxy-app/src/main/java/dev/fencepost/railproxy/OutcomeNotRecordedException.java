package dev.fencepost.railproxy;

/**
 * 503 {@code OUTCOME_NOT_RECORDED}: the rail was called but proxydb refused the outcome. The row
 * stays unresolved, which every reader treats as ambiguous; the caller must not resubmit.
 */
public class OutcomeNotRecordedException extends RuntimeException {

  private final SubmissionRequest request;
  private final RailOutcome observed;

  public OutcomeNotRecordedException(
      SubmissionRequest request, RailOutcome observed, Throwable cause) {
    super(
        "rail outcome "
            + observed.outcome()
            + " for payout "
            + request.payoutId()
            + " could not be recorded",
        cause);
    this.request = request;
    this.observed = observed;
  }

  public SubmissionRequest request() {
    return request;
  }

  public RailOutcome observed() {
    return observed;
  }
}
