/**
 * How the payment resource does it; nothing here is part of the API.
 *
 * <ul>
 *   <li>{@link dev.fencepost.payment.impl.AccountFence}: the one fenced statement (ADR 0036,
 *       INV-05).
 *   <li>{@link dev.fencepost.payment.impl.PayoutEngine}: one transaction per event: fence, re-read,
 *       ask {@link dev.fencepost.payment.PayoutTransitions}, side effect, conditional update,
 *       audit.
 *   <li>{@link dev.fencepost.payment.impl.Ledger}: balanced groups, balances, and the assertions
 *       inside the writing transaction (INV-03); {@link dev.fencepost.payment.impl.BalanceSlots}:
 *       the system accounts' side of a movement, on one of their slot rows (ADR 0193).
 *   <li>{@link dev.fencepost.payment.impl.Accounts}, {@link dev.fencepost.payment.impl.Payouts},
 *       {@link dev.fencepost.payment.impl.AuditLog}: plain SQL over paydb.
 *   <li>{@link dev.fencepost.payment.impl.PaymentSignals}: every structured event and counter, so
 *       their names live in one place (NFR-08, NFR-09).
 *   <li>{@link dev.fencepost.payment.impl.Transactions}: one new READ COMMITTED transaction per
 *       call.
 * </ul>
 */
package dev.fencepost.payment.impl;
