package dev.fencepost.railproxy;

import java.time.OffsetDateTime;

/**
 * A row of {@code rail_submission}: the proxy's durable intent and outcome for one payout. {@code
 * outcome} is null while unresolved: the proxy forwarded (or was about to) and has not recorded an
 * ending, which a reader treats exactly like TIMEOUT.
 */
public record SubmissionRecord(
    long id,
    String payoutId,
    String accountId,
    long fencingToken,
    String clientReference,
    long amountMinor,
    String currency,
    String beneficiaryRef,
    Outcome outcome,
    String railReference,
    String declineCode,
    OffsetDateTime createdAt,
    OffsetDateTime resolvedAt) {}
