package dev.fencepost.payoutjob;

import dev.fencepost.payment.PayoutId;

/**
 * The result of one attempt at one payout.
 *
 * @param payoutId the payout
 * @param outcome what happened
 * @param detail a short human-readable reason (may be empty)
 */
public record PayoutResult(PayoutId payoutId, PayoutOutcome outcome, String detail) {}
