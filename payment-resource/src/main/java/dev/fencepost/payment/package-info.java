/**
 * The payment resource: the first of Fencepost's two guards, a library over paydb (INV-01, INV-03,
 * INV-05, INV-08).
 *
 * <p>What a caller needs, all in this package:
 *
 * <ul>
 *   <li>{@link dev.fencepost.payment.PaymentResource}: the entry point. One method per payout
 *       event, each taking a {@link dev.fencepost.lock.FencingToken} and an {@link
 *       dev.fencepost.payment.Actor} as required arguments (INV-07, ADR 0037, FR-30), plus the
 *       reads a job needs to pick and recover work.
 *   <li>{@link dev.fencepost.payment.PayoutTransitions}: the payout state machine as one explicit,
 *       total table (FR-22). Anything not in it is refused.
 *   <li>{@link dev.fencepost.payment.LedgerAudit}: the INV-03 checks the reconciler runs.
 *   <li>{@link dev.fencepost.payment.PayoutIntake}: customer accounts, their funding and PENDING
 *       payouts as upstream systems hand them in; the one writer without a token (ADR 0038).
 * </ul>
 *
 * <p>The guard itself is one SQL statement in {@code impl.AccountFence}: the account's fence is
 * advanced only when {@code fence <= :token} (ADR 0036), in the same transaction as, and before,
 * every mutation. PostgreSQL evaluates it, so it holds even when the calling code is wrong. A stale
 * token changes nothing and surfaces as {@link dev.fencepost.lock.FencedOutException} (FR-16).
 */
package dev.fencepost.payment;
