package dev.fencepost.payment;

/**
 * Funding was refused because the account has a payout in flight (claimed and not yet terminal).
 * Funding carries no fencing token, so it is only allowed while no holder is working on the account
 * (docs/decisions/0033-fixtures-outside-the-fence.md).
 */
public class AccountBusyException extends PaymentResourceException {

  public AccountBusyException(AccountId accountId, long inFlight) {
    super("account " + accountId + " has " + inFlight + " payout(s) in flight; funding refused");
  }

  @Override
  public String code() {
    return "ACCOUNT_BUSY";
  }
}
