package dev.fencepost.payment;

import java.time.Instant;

/**
 * A payout as stored in paydb, read in one statement. A snapshot: by the time the caller looks at
 * it another holder may have moved it on, which is why every mutation re-reads it inside its own
 * fenced transaction.
 *
 * @param id the payout's identity
 * @param accountId the account it is paid out of; its lock is {@code payout:{accountId}}
 * @param amountMinor positive integer minor units
 * @param currency the deployment's single currency
 * @param beneficiaryRef an opaque synthetic beneficiary reference (NFR-12)
 * @param state where it is in {@link PayoutTransitions}
 * @param clientReference what the rail sees; derived from {@code id}, never regenerated
 * @param claimedBy the current or last claiming worker, null until claimed
 * @param tokenStamp the token of the last accepted transition; diagnostic only, never a guard
 * @param failureReason why it failed or was abandoned, null otherwise
 * @param railReference the rail's reference once acknowledged or found by lookup, else null
 * @param version incremented by every accepted transition
 * @param createdAt when it was created
 * @param claimedAt when it was last claimed, or null
 * @param submittedAt when the proxy accepted it, or null
 * @param settledAt when the rail's settlement became known to us, or null
 * @param finishedAt when it reached a terminal state, or null
 * @param updatedAt when it last changed
 */
public record Payout(
    PayoutId id,
    AccountId accountId,
    long amountMinor,
    String currency,
    String beneficiaryRef,
    PayoutState state,
    String clientReference,
    String claimedBy,
    Long tokenStamp,
    String failureReason,
    String railReference,
    long version,
    Instant createdAt,
    Instant claimedAt,
    Instant submittedAt,
    Instant settledAt,
    Instant finishedAt,
    Instant updatedAt) {}
