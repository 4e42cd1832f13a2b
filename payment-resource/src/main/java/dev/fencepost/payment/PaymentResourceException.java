package dev.fencepost.payment;

/**
 * Base of every refusal by the payment resource other than a fenced-out write (which is the lock
 * contract's {@link dev.fencepost.lock.FencedOutException}). Each subtype has a stable {@link
 * #code()} that jobs and log filters match on; when one is thrown, nothing in paydb changed.
 */
public abstract class PaymentResourceException extends RuntimeException {

  protected PaymentResourceException(String message) {
    super(message);
  }

  protected PaymentResourceException(String message, Throwable cause) {
    super(message, cause);
  }

  /** The stable, machine-readable reason, for example {@code ILLEGAL_TRANSITION}. */
  public abstract String code();
}
