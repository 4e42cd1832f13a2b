/**
 * The rail proxy: the second fencing guard, the one that still holds when the payment resource
 * cannot be changed at all (FR-17, FR-18, INV-02, INV-05).
 *
 * <p>One submission, in this order:
 *
 * <ol>
 *   <li>One proxydb transaction: advance the account's high-water token with a single conditional
 *       upsert (ADR 0046, FR-17, INV-05), then insert the intent row whose payout id is UNIQUE
 *       (FR-18, FR-19, INV-02). A stale token or an existing submission rolls back and is recorded
 *       as an append-only rejection instead (ADR 0047). COMMIT.
 *   <li>Call the rail once. Automatic retries are off (ADR 0042, UC-05).
 *   <li>Record the outcome exactly once: ACKED, REJECTED, or TIMEOUT when the result is unknown
 *       (FR-20). The row is immutable afterwards.
 * </ol>
 *
 * <p>The proxy knows nothing about the lock service or paydb; the only thing it shares with them is
 * the integer token. docs/rail.md explains every outcome.
 */
package dev.fencepost.railproxy;
