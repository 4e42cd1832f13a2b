package dev.fencepost.railproxy;

/** Bad input: 400 {@code INVALID_REQUEST} naming the field; nothing written, nothing sent. */
public class InvalidRequestException extends RuntimeException {

  private final String field;
  private final String reason;

  public InvalidRequestException(String field, String reason) {
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
