package dev.fencepost.railstub;

import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * A payment as the rail accepts it (docs/rail.md). Validated field by field so any malformed
 * request is a 400 and never a movement.
 */
public record PaymentRequest(
    String clientReference, long amountMinor, String currency, String beneficiaryRef) {

  /** What a client reference (and a rail reference) looks like. */
  static final Pattern REFERENCE = Pattern.compile("[A-Za-z0-9:._-]{1,128}");

  private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

  public static PaymentRequest from(JsonNode body) {
    if (body == null || !body.isObject()) {
      throw new InvalidPaymentException("body", "must be a JSON object");
    }
    return new PaymentRequest(
        text(body, "clientReference", REFERENCE),
        positive(body, "amountMinor"),
        text(body, "currency", CURRENCY),
        text(body, "beneficiaryRef", REFERENCE));
  }

  private static String text(JsonNode body, String field, Pattern pattern) {
    JsonNode node = body.get(field);
    if (node == null || !node.isString() || !pattern.matcher(node.stringValue()).matches()) {
      throw new InvalidPaymentException(field, "must be a string matching " + pattern.pattern());
    }
    return node.stringValue();
  }

  private static long positive(JsonNode body, String field) {
    JsonNode node = body.get(field);
    if (node == null
        || !node.isIntegralNumber()
        || !node.canConvertToLong()
        || node.longValue() <= 0) {
      throw new InvalidPaymentException(field, "must be a positive integer");
    }
    return node.longValue();
  }
}
