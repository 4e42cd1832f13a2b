package dev.fencepost.payment;

/**
 * What {@link PaymentResource#claimIfPending} did with a payout the caller had seen PENDING.
 *
 * @param payout as committed when {@code claimed} (CLAIMED, or FAILED when the balance could not
 *     cover it); otherwise as found inside the fenced transaction, which then changed nothing
 * @param claimed whether the payout was still PENDING and the claim was made
 */
public record ClaimAttempt(Payout payout, boolean claimed) {}
