package dev.fencepost.railstub;

/** A malformed payment request; answered with 400 {@code INVALID_PAYMENT}, nothing recorded. */
public class InvalidPaymentException extends RuntimeException {

  private final String field;

  public InvalidPaymentException(String field, String reason) {
    super(field + " " + reason);
    this.field = field;
  }

  public String field() {
    return field;
  }
}
