package dev.fencepost.payment;

/** A fixture tried to create an account or payout whose id is taken. Ids are never reused. */
public class AlreadyExistsException extends PaymentResourceException {

  public AlreadyExistsException(String message) {
    super(message);
  }

  @Override
  public String code() {
    return "ALREADY_EXISTS";
  }
}
