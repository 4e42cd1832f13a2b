package dev.fencepost.reconciliation;

import java.time.Duration;
import java.util.Objects;

/**
 * The reconciler's knobs (properties {@code fencepost.reconciliation.*}, docs/reconciliation.md).
 *
 * @param resolutionSla how long a payout may stay RAIL_AMBIGUOUS before it is a ticket and an
 *     operator may abandon it (A-10: 4 h)
 * @param settlementWindow how long after submission the rail's lookup must still show nothing
 *     before absence counts as evidence (the payout state machine, docs/payment-resource.md, longer
 *     than the rail's lookup lag, A-08). Never a resolution by itself: the lookup's answer is the
 *     evidence (ADR 0073)
 * @param postingGrace how long a RAIL_ACKED payout may wait for a worker to post it before its
 *     missing posting is a finding (ADR 0070)
 * @param lockWait how long to wait for the account's lock before skipping the payout this run
 * @param sampleSize how many ids a {@code reconciliation.finding} event carries (bounded log lines)
 * @param maxFindingsPerClass how many findings of one class a run persists; counts stay exact
 * @param reconcilerId the reconciler's identity in the audit trail (FR-30)
 * @param maxWindow the longest window one run compares; a longer one is refused before the run
 *     starts (ADR 0168): what a run holds in memory (the window's submissions and the rail
 *     movements of their references) grows with the window
 */
public record ReconciliationSettings(
    Duration resolutionSla,
    Duration settlementWindow,
    Duration postingGrace,
    Duration lockWait,
    int sampleSize,
    int maxFindingsPerClass,
    String reconcilerId,
    Duration maxWindow) {

  public ReconciliationSettings {
    positive(maxWindow, "maxWindow");
    positive(resolutionSla, "resolutionSla");
    positive(settlementWindow, "settlementWindow");
    positive(postingGrace, "postingGrace");
    positive(lockWait, "lockWait");
    if (sampleSize < 1 || sampleSize > 100) {
      throw new IllegalArgumentException("sampleSize must be 1..100, got " + sampleSize);
    }
    if (maxFindingsPerClass < sampleSize) {
      throw new IllegalArgumentException("maxFindingsPerClass must be >= sampleSize");
    }
    Objects.requireNonNull(reconcilerId, "reconcilerId");
  }

  /** A-10's SLA, a 30-minute settlement window, 15 minutes of posting grace, windows up to 24 h. */
  public static ReconciliationSettings defaults(String reconcilerId) {
    return new ReconciliationSettings(
        Duration.ofHours(4),
        Duration.ofMinutes(30),
        Duration.ofMinutes(15),
        Duration.ofSeconds(2),
        20,
        1000,
        reconcilerId,
        Duration.ofHours(24));
  }

  public ReconciliationSettings withSettlementWindow(Duration value) {
    return new ReconciliationSettings(
        resolutionSla,
        value,
        postingGrace,
        lockWait,
        sampleSize,
        maxFindingsPerClass,
        reconcilerId,
        maxWindow);
  }

  public ReconciliationSettings withResolutionSla(Duration value) {
    return new ReconciliationSettings(
        value,
        settlementWindow,
        postingGrace,
        lockWait,
        sampleSize,
        maxFindingsPerClass,
        reconcilerId,
        maxWindow);
  }

  public ReconciliationSettings withPostingGrace(Duration value) {
    return new ReconciliationSettings(
        resolutionSla,
        settlementWindow,
        value,
        lockWait,
        sampleSize,
        maxFindingsPerClass,
        reconcilerId,
        maxWindow);
  }

  public ReconciliationSettings withMaxWindow(Duration value) {
    return new ReconciliationSettings(
        resolutionSla,
        settlementWindow,
        postingGrace,
        lockWait,
        sampleSize,
        maxFindingsPerClass,
        reconcilerId,
        value);
  }

  /**
   * Refuses a window longer than {@link #maxWindow()}.
   *
   * @throws WindowTooLongException when it is
   */
  public void requireWithinMaxWindow(ReconciliationWindow window) {
    Duration length = Duration.between(window.from(), window.to());
    if (length.compareTo(maxWindow) > 0) {
      throw new WindowTooLongException(length, maxWindow);
    }
  }

  private static void positive(Duration d, String name) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, got " + d);
    }
  }
}
