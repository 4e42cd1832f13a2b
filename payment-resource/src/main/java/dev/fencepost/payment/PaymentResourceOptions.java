package dev.fencepost.payment;

import java.util.regex.Pattern;

/**
 * How a {@link PaymentResource} behaves. The defaults are the production settings.
 *
 * @param currency the deployment's single currency, three upper-case letters; must match the
 *     currency paydb's system accounts were created in (Liquibase property {@code paydb.currency})
 * @param fencingMode {@link FencingMode#ENFORCED} unless an experiment deliberately says otherwise
 */
public record PaymentResourceOptions(String currency, FencingMode fencingMode) {

  /**
   * The largest amount one payout or funding may carry, in minor units (10^15: ten trillion in a
   * two-decimal currency). A bound well below {@code Long.MAX_VALUE} keeps balance arithmetic far
   * from overflow and makes an absurd amount a clear input error.
   */
  public static final long MAX_AMOUNT_MINOR = 1_000_000_000_000_000L;

  /** The largest page a read returns, so no job can ask for an unbounded scan. */
  public static final int MAX_PAGE_SIZE = 1_000;

  /** The default single currency. */
  public static final String DEFAULT_CURRENCY = "EUR";

  private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

  public PaymentResourceOptions {
    if (currency == null || !CURRENCY.matcher(currency).matches()) {
      throw new InvalidPaymentRequestException(
          "a currency is three upper-case letters, got " + Checks.quote(currency));
    }
    if (fencingMode == null) {
      throw new InvalidPaymentRequestException("a fencing mode is required");
    }
  }

  /** EUR, fencing enforced. */
  public static PaymentResourceOptions defaults() {
    return new PaymentResourceOptions(DEFAULT_CURRENCY, FencingMode.ENFORCED);
  }

  public PaymentResourceOptions withCurrency(String newCurrency) {
    return new PaymentResourceOptions(newCurrency, fencingMode);
  }

  /** For the UC-03 negative control only; see {@link FencingMode#EXPERIMENT_DISABLED}. */
  public PaymentResourceOptions withFencingMode(FencingMode mode) {
    return new PaymentResourceOptions(currency, mode);
  }
}
