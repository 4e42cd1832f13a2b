package dev.fencepost.payment.testkit;

import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.AccountView;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutId;
import dev.fencepost.payment.PayoutIntake;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Synthetic paydb data for tests, through {@link PayoutIntake} (so with its rules: balanced
 * funding, refused while a payout is in flight, audited as INTAKE with the loader's identity).
 * Tests that share a database keep apart by accounts of their own: {@link #fundedAccount} and
 * {@link #accountWithPayouts} give each call a fresh account id.
 */
public final class PaydbFixtures {

  private final PayoutIntake intake;

  /** Fixtures loaded as {@code loader} (recorded in the audit trail). */
  public PaydbFixtures(DataSource paydb, String loader) {
    this.intake = new PayoutIntake(paydb, loader);
  }

  /** The intake underneath, for a test of intake's own rules. */
  public PayoutIntake intake() {
    return intake;
  }

  public AccountView createAccount(AccountId account, long initialFundingMinor) {
    return intake.createAccount(account, initialFundingMinor);
  }

  public AccountView fund(AccountId account, long amountMinor) {
    return intake.fund(account, amountMinor);
  }

  public Payout createPendingPayout(
      AccountId account, long amountMinor, String currency, String beneficiaryRef) {
    return intake.createPendingPayout(account, amountMinor, currency, beneficiaryRef);
  }

  public Payout createPendingPayout(
      PayoutId id, AccountId account, long amountMinor, String currency, String beneficiaryRef) {
    return intake.createPendingPayout(id, account, amountMinor, currency, beneficiaryRef);
  }

  /** A new customer account {@code <prefix>-<8 hex>} funded with {@code fundingMinor}. */
  public AccountId fundedAccount(String prefix, long fundingMinor) {
    AccountId account = AccountId.of(prefix + "-" + UUID.randomUUID().toString().substring(0, 8));
    intake.createAccount(account, fundingMinor);
    return account;
  }

  /**
   * A new funded account with {@code count} PENDING EUR payouts of {@code amountMinor} each, to
   * beneficiaries {@code ben-0}, {@code ben-1}, ...
   */
  public List<Payout> accountWithPayouts(
      String prefix, long fundingMinor, int count, long amountMinor) {
    AccountId account = fundedAccount(prefix, fundingMinor);
    List<Payout> payouts = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      payouts.add(intake.createPendingPayout(account, amountMinor, "EUR", "ben-" + i));
    }
    return payouts;
  }
}
