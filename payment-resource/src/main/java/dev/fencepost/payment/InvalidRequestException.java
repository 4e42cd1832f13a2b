package dev.fencepost.payment;

/**
 * The caller passed something the resource will not act on: a missing token or actor, a blank
 * reason, a malformed identifier, a page size out of range. Rejected before paydb is touched.
 */
public class InvalidRequestException extends PaymentResourceException {

  public InvalidRequestException(String message) {
    super(message);
  }

  InvalidRequestException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public String code() {
    return "INVALID_REQUEST";
  }
}
