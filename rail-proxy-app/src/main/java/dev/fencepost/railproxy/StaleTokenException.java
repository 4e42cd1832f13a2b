package dev.fencepost.railproxy;

/**
 * 409 {@code STALE_TOKEN}: the token is below the account's high-water (ADR 0046, FR-17, INV-05).
 */
public class StaleTokenException extends RuntimeException {

  private final SubmissionRequest request;
  private final long highWater;

  public StaleTokenException(SubmissionRequest request, long highWater) {
    super(
        "fencing token "
            + request.fencingToken()
            + " is below the high-water "
            + highWater
            + " of "
            + request.lockKey());
    this.request = request;
    this.highWater = highWater;
  }

  public SubmissionRequest request() {
    return request;
  }

  public long highWater() {
    return highWater;
  }
}
