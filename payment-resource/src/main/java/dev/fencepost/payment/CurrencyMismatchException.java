package dev.fencepost.payment;

/**
 * A currency other than the deployment's single currency (A-06, {@link PaymentResourceOptions}).
 */
public class CurrencyMismatchException extends InvalidPaymentRequestException {

  public CurrencyMismatchException(String presented, String expected) {
    super("currency " + presented + " is not this deployment's single currency " + expected);
  }

  @Override
  public String code() {
    return "CURRENCY_MISMATCH";
  }
}
