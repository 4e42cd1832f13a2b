package dev.fencepost.payment;

/** No account with this id exists in paydb. */
public class AccountNotFoundException extends PaymentResourceException {

  private final AccountId accountId;

  public AccountNotFoundException(AccountId accountId) {
    super("no account " + accountId);
    this.accountId = accountId;
  }

  public AccountId accountId() {
    return accountId;
  }

  @Override
  public String code() {
    return "ACCOUNT_NOT_FOUND";
  }
}
