package dev.fencepost.reconciliation;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code fencepost.reconciliation.*}: where the sources are and the reconciler's knobs (see {@link
 * ReconciliationSettings} and docs/reconciliation.md). paydb's connection is {@code
 * fencepost.paydb.*} (payment-resource's auto-configuration), never Boot's {@code
 * spring.datasource}, which is batchdb.
 *
 * @param migratePaydb apply paydb's changelog at start-up (this module's tables come with it); off
 *     by default: migrations are their own step, as paydb's owner (ADR 0160)
 * @param proxyBaseUrl the rail proxy's read API
 * @param railStatementUrl the rail, whose {@code /rail/statements} the reconciler reads with {@code
 *     statement-source: rail} (locally the rail stub, ADR 0176)
 * @param httpTimeout timeout of one read from the proxy or the statement
 * @param resolutionSla A-10's SLA
 * @param settlementWindow how long "not found" must last before it is evidence of absence
 * @param postingGrace how long a RAIL_ACKED payout may wait for a worker's posting
 * @param lockWait wait for the account's lock
 * @param sampleSize ids per {@code reconciliation.finding} event
 * @param maxFindingsPerClass findings persisted per class and run
 * @param reconcilerId the identity in the audit trail
 * @param maxWindow the longest window one run may compare (ADR 0168); a job launched with a longer
 *     one is refused with 400 INVALID_PARAMETERS and nothing runs
 * @param statementPageSize entries per statement page, 1..1000
 * @param statementSource where the rail's camt.053 statements come from: {@code rail} (over HTTP
 *     from {@code rail-statement-url}) or {@code directory} (the files in {@code
 *     statement-directory}, a bank's SFTP drop; ADR 0176)
 * @param statementDirectory the directory of statement files, for {@code statement-source:
 *     directory}
 * @param windowLength the length of the windows a run without a given window reconciles, aligned to
 *     it (ADR 0177); whole seconds dividing a day, at most {@code max-window}
 * @param maxWindowsPerRun the most window passes (first reads and re-reads) one run reconciles;
 *     more closed windows wait for the next run, oldest first
 * @param lateEntryGrace how long after a window closed it is read once more, for statement entries
 *     that reached the statement late (ADR 0177)
 */
@ConfigurationProperties("fencepost.reconciliation")
public record ReconciliationProperties(
    @DefaultValue("false") boolean migratePaydb,
    @DefaultValue("http://localhost:8082") String proxyBaseUrl,
    @DefaultValue("http://localhost:8083") String railStatementUrl,
    @DefaultValue("10s") Duration httpTimeout,
    @DefaultValue("4h") Duration resolutionSla,
    @DefaultValue("30m") Duration settlementWindow,
    @DefaultValue("15m") Duration postingGrace,
    @DefaultValue("2s") Duration lockWait,
    @DefaultValue("20") int sampleSize,
    @DefaultValue("1000") int maxFindingsPerClass,
    @DefaultValue("reconciliation-job") String reconcilerId,
    @DefaultValue("24h") Duration maxWindow,
    @DefaultValue("500") int statementPageSize,
    @DefaultValue("rail") StatementSourceKind statementSource,
    java.nio.file.Path statementDirectory,
    @DefaultValue("1h") Duration windowLength,
    @DefaultValue("24") int maxWindowsPerRun,
    @DefaultValue("2h") Duration lateEntryGrace) {

  /** The catch-up's settings; a window longer than {@code max-window} is refused at start-up. */
  public CatchUpSettings catchUp() {
    CatchUpSettings catchUp = new CatchUpSettings(windowLength, maxWindowsPerRun, lateEntryGrace);
    if (windowLength.compareTo(maxWindow) > 0) {
      throw new IllegalArgumentException(
          "fencepost.reconciliation.window-length "
              + windowLength
              + " exceeds max-window "
              + maxWindow);
    }
    return catchUp;
  }

  /** The kinds of {@link StatementSource}. */
  public enum StatementSourceKind {
    /** {@link RailStatementSource}. */
    RAIL,
    /** {@link DirectoryStatementSource}. */
    DIRECTORY
  }

  public ReconciliationSettings settings() {
    return new ReconciliationSettings(
        resolutionSla,
        settlementWindow,
        postingGrace,
        lockWait,
        sampleSize,
        maxFindingsPerClass,
        reconcilerId,
        maxWindow);
  }
}
