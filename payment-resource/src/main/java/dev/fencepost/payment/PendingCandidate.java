package dev.fencepost.payment;

/**
 * One entry of {@link PaymentResource#pendingCandidates}: an account's oldest PENDING payout, and
 * how many PENDING payouts the account had when the page was read.
 *
 * @param payout the account's oldest PENDING payout; a hint, which the claim re-reads (FR-14)
 * @param accountPending the account's PENDING payouts at the page's read, this one included (at
 *     least 1). Also only a hint: payouts created since are not in it, and another worker may have
 *     taken some. The payout job uses it to skip looking for a next payout that was not there (ADR
 *     0238).
 */
public record PendingCandidate(Payout payout, int accountPending) {

  public PendingCandidate {
    if (payout == null) {
      throw new IllegalArgumentException("a pending candidate needs its payout");
    }
    if (accountPending < 1) {
      throw new IllegalArgumentException(
          "an account offering a pending payout has at least one, not " + accountPending);
    }
  }
}
