package dev.fencepost.payment;

import dev.fencepost.lock.FencingToken;

/**
 * Argument checks shared by the entry points; each failure is an {@link
 * InvalidPaymentRequestException}.
 */
final class Checks {

  private static final int MAX_TEXT = 500;

  private Checks() {}

  static FencingToken token(FencingToken token) {
    if (token == null) {
      // INV-07: there is no path that mutates paydb without a grant's token.
      throw new InvalidPaymentRequestException(
          "a fencing token is required for every mutation (INV-07)");
    }
    return token;
  }

  static <T> T present(T value, String what) {
    if (value == null) {
      throw new InvalidPaymentRequestException(what + " is required");
    }
    return value;
  }

  /** A non-blank reason or code of at most 500 characters, stripped. */
  static String text(String value, String what) {
    if (value == null || value.isBlank()) {
      throw new InvalidPaymentRequestException(what + " must not be blank");
    }
    String stripped = value.strip();
    if (stripped.length() > MAX_TEXT) {
      throw new InvalidPaymentRequestException(
          what + " is longer than " + MAX_TEXT + " characters");
    }
    return stripped;
  }

  /** An identity such as a loader or operator name: 1 to 128 non-blank characters. */
  static String identity(String value, String what) {
    if (value == null || !value.matches("\\S{1,128}")) {
      throw new InvalidPaymentRequestException(what + " is 1 to 128 non-blank characters");
    }
    return value;
  }

  static long amount(long amountMinor) {
    if (amountMinor <= 0 || amountMinor > PaymentResourceOptions.MAX_AMOUNT_MINOR) {
      throw new InvalidAmountException(
          "an amount is an integer number of minor units in [1, "
              + PaymentResourceOptions.MAX_AMOUNT_MINOR
              + "], got "
              + amountMinor);
    }
    return amountMinor;
  }

  static int pageSize(int limit) {
    if (limit < 1 || limit > PaymentResourceOptions.MAX_PAGE_SIZE) {
      throw new InvalidPaymentRequestException(
          "a page size is in [1, " + PaymentResourceOptions.MAX_PAGE_SIZE + "], got " + limit);
    }
    return limit;
  }

  static String quote(String value) {
    return value == null ? "null" : "'" + value + "'";
  }
}
