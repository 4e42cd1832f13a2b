package dev.fencepost.railstub;

import java.time.Instant;

/**
 * Money that left: one accepted payment. Never merged with another movement of the same client
 * reference, because the rail is non-idempotent (FR-21).
 *
 * @param railReference the rail's own identifier, unique per movement
 * @param clientReference the caller's reference, not unique here
 * @param amountMinor amount in minor units
 * @param currency ISO currency code
 * @param beneficiaryRef opaque beneficiary reference
 * @param status always SETTLED
 * @param receivedAt when the rail settled it
 * @param visibleAt when the lookup starts to show it
 */
public record Movement(
    String railReference,
    String clientReference,
    long amountMinor,
    String currency,
    String beneficiaryRef,
    String status,
    Instant receivedAt,
    Instant visibleAt) {}
