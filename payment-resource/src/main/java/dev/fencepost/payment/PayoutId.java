package dev.fencepost.payment;

import java.util.UUID;

/**
 * A payout's identifier. The client reference the rail sees is derived from it and from nothing
 * else, so it is the same on every retry and after every recovery: a regenerated reference would
 * make a duplicate undetectable. paydb computes the same value in a generated column.
 *
 * @param value a UUID
 */
public record PayoutId(UUID value) {

  private static final String CLIENT_REFERENCE_PREFIX = "fp-";

  public PayoutId {
    if (value == null) {
      throw new InvalidPaymentRequestException("a payout id is required");
    }
  }

  public static PayoutId of(UUID value) {
    return new PayoutId(value);
  }

  /** Parses the canonical UUID text; anything else is an {@link InvalidPaymentRequestException}. */
  public static PayoutId parse(String text) {
    try {
      return new PayoutId(UUID.fromString(text == null ? "" : text));
    } catch (IllegalArgumentException e) {
      throw new InvalidPaymentRequestException(
          "a payout id is a UUID, got " + Checks.quote(text), e);
    }
  }

  /** A fresh id, for fixtures. */
  public static PayoutId random() {
    return new PayoutId(UUID.randomUUID());
  }

  /** {@code fp-} followed by the 32 hex digits of the id: stable for the payout's whole life. */
  public String clientReference() {
    return CLIENT_REFERENCE_PREFIX + value.toString().replace("-", "");
  }

  @Override
  public String toString() {
    return value.toString();
  }
}
