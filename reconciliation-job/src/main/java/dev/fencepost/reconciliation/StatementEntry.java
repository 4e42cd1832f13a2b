package dev.fencepost.reconciliation;

import java.time.Instant;
import java.util.Objects;

/**
 * One entry of the rail's camt.053 statement (ADR 0176): money that left, as the rail books it.
 *
 * @param entryReference {@code NtryRef}, the rail's reference, unique per movement: the key every
 *     entry is recorded under, however often its statement is read
 * @param endToEndId the client reference the rail was given ({@code EndToEndId}): the payout's
 * @param amountMinor the amount in minor units
 * @param currency ISO 4217
 * @param beneficiaryRef where the money went ({@code RltdPties/Cdtr}), or null when not stated
 * @param bookedAt when the rail booked it ({@code BookgDt})
 */
public record StatementEntry(
    String entryReference,
    String endToEndId,
    long amountMinor,
    String currency,
    String beneficiaryRef,
    Instant bookedAt) {

  public StatementEntry {
    Objects.requireNonNull(entryReference, "entryReference");
    Objects.requireNonNull(endToEndId, "endToEndId");
    Objects.requireNonNull(currency, "currency");
    Objects.requireNonNull(bookedAt, "bookedAt");
  }

  /** As the comparison's movement of a client reference. */
  RailMovement movement() {
    return new RailMovement(entryReference, endToEndId, amountMinor, bookedAt);
  }
}
