package dev.fencepost.lock;

import java.util.regex.Pattern;

/**
 * The name of a lock. Keys match {@code [A-Za-z0-9:._-]{1,128}}; the payout platform uses exactly
 * one pattern, {@code payout:{accountId}}.
 *
 * @param value the validated key
 */
public record LockKey(String value) {

  /** The pattern every key must match in full. */
  public static final Pattern PATTERN = Pattern.compile("[A-Za-z0-9:._-]{1,128}");

  private static final String PAYOUT_PREFIX = "payout:";

  public LockKey {
    if (value == null || !PATTERN.matcher(value).matches()) {
      throw new InvalidLockKeyException(value);
    }
  }

  public static LockKey of(String value) {
    return new LockKey(value);
  }

  /** The key that guards every payout of one account: the account's payout stream. */
  public static LockKey forPayoutAccount(String accountId) {
    return new LockKey(PAYOUT_PREFIX + accountId);
  }

  /** True when {@code candidate} is a well-formed key. */
  public static boolean isValid(String candidate) {
    return candidate != null && PATTERN.matcher(candidate).matches();
  }

  @Override
  public String toString() {
    return value;
  }
}
