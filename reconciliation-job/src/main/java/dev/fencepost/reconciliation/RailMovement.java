package dev.fencepost.reconciliation;

import java.time.Instant;

/**
 * Money that left on the rail, as its statement or its lookup reports it.
 *
 * @param railReference the rail's identifier, unique per movement
 * @param clientReference ours; not unique on the rail, which is the whole problem (FR-21)
 * @param amountMinor the amount
 * @param receivedAt when the rail settled it
 */
public record RailMovement(
    String railReference, String clientReference, long amountMinor, Instant receivedAt) {}
