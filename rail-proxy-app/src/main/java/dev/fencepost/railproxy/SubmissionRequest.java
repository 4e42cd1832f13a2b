package dev.fencepost.railproxy;

import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * One payout submission as the payout worker presents it (docs/rail.md). Parsed field by field from
 * the JSON tree, so that a string token, a fractional amount or a missing field is a precise 400
 * naming the field, and never a write or a rail call.
 *
 * @param payoutId the payout; at most one submission per payout ever (FR-18)
 * @param accountId the account whose lock key {@code payout:{accountId}} issued the token
 * @param fencingToken the token of the caller's grant, a positive integer (FR-17)
 * @param clientReference stable per payout; what the rail sees and what a lookup searches
 * @param amountMinor amount in integer minor units, positive
 * @param currency the platform's single currency
 * @param beneficiaryRef opaque synthetic beneficiary reference (NFR-12)
 * @param grant the lock server's signed grant for {@code payout:{accountId}} and {@code
 *     fencingToken} (ADR 0137); null when the body has none, which the grant check refuses
 */
public record SubmissionRequest(
    String payoutId,
    String accountId,
    long fencingToken,
    String clientReference,
    long amountMinor,
    String currency,
    String beneficiaryRef,
    String grant) {

  /** Identifiers: safe in logs, URLs and lock keys. */
  static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z0-9:._-]{1,128}");

  /**
   * Parses and validates a request body.
   *
   * @throws InvalidSubmissionException naming the first offending field
   */
  public static SubmissionRequest from(JsonNode body, String expectedCurrency) {
    if (body == null || !body.isObject()) {
      throw new InvalidSubmissionException("body", "must be a JSON object");
    }
    String currency = identifier(body, "currency");
    if (!currency.equals(expectedCurrency)) {
      throw new InvalidSubmissionException("currency", "must be " + expectedCurrency + " (A-06)");
    }
    return new SubmissionRequest(
        identifier(body, "payoutId"),
        identifier(body, "accountId"),
        positiveInteger(body, "fencingToken"),
        identifier(body, "clientReference"),
        positiveInteger(body, "amountMinor"),
        currency,
        identifier(body, "beneficiaryRef"),
        grant(body));
  }

  /**
   * The grant as presented: absent or null stays null (refused by the grant check, with a row, ADR
   * 0137); any other JSON than a string is bad input.
   */
  private static String grant(JsonNode body) {
    JsonNode node = body.get("grant");
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isString()) {
      throw new InvalidSubmissionException("grant", "must be a string (the lock server's JWS)");
    }
    return node.stringValue();
  }

  private static String identifier(JsonNode body, String field) {
    JsonNode node = body.get(field);
    if (node == null || node.isNull()) {
      throw new InvalidSubmissionException(field, "is required");
    }
    if (!node.isString() || !IDENTIFIER.matcher(node.stringValue()).matches()) {
      throw new InvalidSubmissionException(
          field, "must be a string of 1 to 128 characters from [A-Za-z0-9:._-]");
    }
    return node.stringValue();
  }

  private static long positiveInteger(JsonNode body, String field) {
    JsonNode node = body.get(field);
    if (node == null || node.isNull()) {
      throw new InvalidSubmissionException(field, "is required");
    }
    // A JSON number only: "42" as a string is refused rather than coerced.
    if (!node.isIntegralNumber() || !node.canConvertToLong()) {
      throw new InvalidSubmissionException(field, "must be an integer JSON number");
    }
    if (node.longValue() <= 0) {
      throw new InvalidSubmissionException(field, "must be positive");
    }
    return node.longValue();
  }

  /** The lock key the token belongs to, for log events. */
  public String lockKey() {
    return "payout:" + accountId;
  }
}
