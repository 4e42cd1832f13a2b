package dev.fencepost.payment;

import dev.fencepost.lock.LockKey;
import java.util.regex.Pattern;

/**
 * A synthetic account identifier (never a natural key such as an IBAN, NFR-12). It is the unit of
 * locking: {@link #lockKey()} is {@code payout:{id}}, so the id is restricted to characters
 * a lock key allows.
 *
 * @param value {@code [A-Za-z0-9._-]{1,64}}
 */
public record AccountId(String value) {

  private static final Pattern PATTERN = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  /** Receives the credit leg of every payout posting. */
  public static final AccountId PAYOUT_CLEARING = new AccountId("payout-clearing");

  /** The counterparty of every funding group (ADR 0033). */
  public static final AccountId FUNDING_SOURCE = new AccountId("funding-source");

  public AccountId {
    if (value == null || !PATTERN.matcher(value).matches()) {
      throw new InvalidPaymentRequestException(
          "an account id matches [A-Za-z0-9._-]{1,64}, got " + Checks.quote(value));
    }
  }

  public static AccountId of(String value) {
    return new AccountId(value);
  }

  /** The lock that guards this account's payout stream, {@code payout:{id}} (A-15, ADR 0037). */
  public LockKey lockKey() {
    return LockKey.forPayoutAccount(value);
  }

  /** True for the two system accounts, which never own payouts. */
  public boolean isSystemAccount() {
    return equals(PAYOUT_CLEARING) || equals(FUNDING_SOURCE);
  }

  @Override
  public String toString() {
    return value;
  }
}
