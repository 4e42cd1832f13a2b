package dev.fencepost.reconciliation;

import java.util.Objects;

/**
 * One discrepancy, with the identifiers an investigator starts from. Identifiers live here, in the
 * log event and in paydb, never in a metric tag (NFR-09).
 *
 * @param discrepancy its class
 * @param subject what it is about: a payout id, client reference, account id or ledger group
 * @param payoutId the payout concerned, or null when there is none (e.g. a foreign movement)
 * @param accountId the account concerned, or null
 * @param detail the evidence, for a person
 */
public record Finding(
    Discrepancy discrepancy, String subject, String payoutId, String accountId, String detail) {

  public Finding {
    Objects.requireNonNull(discrepancy, "discrepancy");
    Objects.requireNonNull(subject, "subject");
    Objects.requireNonNull(detail, "detail");
  }

  public Severity severity() {
    return discrepancy.severity();
  }
}
