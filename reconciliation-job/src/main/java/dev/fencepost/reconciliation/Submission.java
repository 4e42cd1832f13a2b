package dev.fencepost.reconciliation;

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
 */
public record Submission(
    long id,
    String payoutId,
    String accountId,
    long fencingToken,
    String clientReference,
    String outcome,
    String railReference,
    Instant createdAt) {

  public boolean acked() {
    return "ACKED".equals(outcome);
  }

  public boolean rejected() {
    return "REJECTED".equals(outcome);
  }
}
