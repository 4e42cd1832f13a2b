package dev.fencepost.railproxy;

/**
 * Bad input to the rail proxy (a submission or a lookup): 400 {@code INVALID_REQUEST} naming the
 * field; nothing written, nothing sent.
 */
public class InvalidSubmissionException extends RuntimeException {

  private final String field;
  private final String reason;

  public InvalidSubmissionException(String field, String reason) {
    super(field + " " + reason);
    this.field = field;
    this.reason = reason;
  }

  public String field() {
    return field;
  }

  public String reason() {
    return reason;
  }
}
