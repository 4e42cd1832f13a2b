package dev.fencepost.payment;

/**
 * A caller of the payment resource passed something it will not act on: a missing token or actor, a
 * blank reason, a malformed identifier, a page size out of range. Rejected before paydb is touched.
 * Code {@code INVALID_REQUEST}.
 */
public class InvalidPaymentRequestException extends PaymentResourceException {

  public InvalidPaymentRequestException(String message) {
    super(message);
  }

  InvalidPaymentRequestException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public String code() {
    return "INVALID_REQUEST";
  }
}
