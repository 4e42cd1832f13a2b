/**
 * The reconciliation job: the detective control behind INV-01, INV-02 and INV-03 (UC-07, FR-26) and
 * the evidence-based path out of RAIL_AMBIGUOUS (UC-05 steps 5 and 6).
 *
 * <p>{@link dev.fencepost.reconciliation.Reconciler#run} is the one entry point: the Batch job, the
 * local platform and the tests all call it. It never repairs money or balances (FR-26); its only
 * payout transitions are resolutions by rail evidence and operator actions, each under the
 * account's lock with that grant's token (ADR 0037, INV-07). See docs/reconciliation.md and ADRs
 * 0070-0079.
 */
package dev.fencepost.reconciliation;
