package dev.fencepost.payment;

/**
 * An amount that is zero, negative, above {@link PaymentResourceOptions#MAX_AMOUNT_MINOR}, or that
 * would overflow a balance. Amounts are positive integer minor units.
 */
public class InvalidAmountException extends InvalidPaymentRequestException {

  public InvalidAmountException(String message) {
    super(message);
  }

  public InvalidAmountException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public String code() {
    return "INVALID_AMOUNT";
  }
}
