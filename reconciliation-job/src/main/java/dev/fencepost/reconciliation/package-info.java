/**
 * The reconciliation job: the detective control behind INV-01, INV-02 and INV-03 (UC-07, FR-26) and
 * the evidence-based path out of RAIL_AMBIGUOUS (UC-05 steps 5 and 6).
 *
 * <p>{@link dev.fencepost.reconciliation.Reconciler#run} is the one entry point: the Batch job, the
 * local platform and the tests all call it. It never repairs money or balances (FR-26); its only
 * payout transitions are resolutions by rail evidence and operator actions, each under the
 * account's lock with that grant's token (ADR 0037, INV-07).
 *
 * <p>The rail's evidence is its ISO 20022 camt.053.001.08 statement (ADR 0176), read through a
 * {@link dev.fencepost.reconciliation.StatementSource}: {@link
 * dev.fencepost.reconciliation.RailStatementSource} over HTTP or {@link
 * dev.fencepost.reconciliation.DirectoryStatementSource} from a bank's file drop, parsed with the
 * Prowide model ({@code Camt053}) and recorded by entry reference ({@link
 * dev.fencepost.reconciliation.StatementEntryStore}).
 *
 * <p>Without a given window the job catches up ({@link dev.fencepost.reconciliation.CatchUp}, ADR
 * 0177): every closed window since the last one completed, each re-read once after the late-entry
 * grace, recorded in the {@link dev.fencepost.reconciliation.WindowLedger}. The statement side is a
 * chunk-oriented Batch step ({@link dev.fencepost.reconciliation.StatementScan}, ADR 0178), with
 * keyed writes so a restarted step records nothing twice. Findings are issues with owners ({@link
 * dev.fencepost.reconciliation.FindingStore}, {@link
 * dev.fencepost.reconciliation.FindingsEndpoint}, ADR 0179). See docs/reconciliation.md and ADRs
 * 0070-0079, 0168 and 0176-0179.
 */
package dev.fencepost.reconciliation;
