package dev.fencepost.payment;

/** No payout with this id exists in paydb. */
public class PayoutNotFoundException extends PaymentResourceException {

  private final PayoutId payoutId;

  public PayoutNotFoundException(PayoutId payoutId) {
    super("no payout " + payoutId);
    this.payoutId = payoutId;
  }

  public PayoutId payoutId() {
    return payoutId;
  }

  @Override
  public String code() {
    return "PAYOUT_NOT_FOUND";
  }
}
