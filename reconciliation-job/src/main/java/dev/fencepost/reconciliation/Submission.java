package dev.fencepost.reconciliation;

import dev.fencepost.payment.SubmittedContent;
import java.time.Instant;

/**
 * The rail proxy's record of one submission ({@code rail_submission}), as its read API returns it.
 * {@code outcome} is null while unresolved, which reads like TIMEOUT.
 *
 * @param id the proxy's submission id
 * @param payoutId the payout
 * @param accountId its account
 * @param fencingToken the token presented
 * @param clientReference what the rail saw
 * @param outcome ACKED, REJECTED, TIMEOUT or null
 * @param railReference the rail's reference when acknowledged
 * @param createdAt when the intent was recorded
 * @param amountMinor the amount submitted, -1 when the answer did not carry it
 * @param currency the currency submitted
 * @param beneficiaryRef where the money was to go
 */
public record Submission(
    long id,
    String payoutId,
    String accountId,
    long fencingToken,
    String clientReference,
    String outcome,
    String railReference,
    Instant createdAt,
    long amountMinor,
    String currency,
    String beneficiaryRef) {

  /** What this submission carried, to compare with the paydb payout of the same id (ADR 0140). */
  public SubmittedContent content() {
    return new SubmittedContent(accountId, amountMinor, currency, beneficiaryRef, clientReference);
  }

  public boolean acked() {
    return "ACKED".equals(outcome);
  }

  public boolean rejected() {
    return "REJECTED".equals(outcome);
  }
}
