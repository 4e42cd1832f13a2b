package dev.fencepost.reconciliation;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * The closed, half-open time window {@code [from, to)} a run compares (A-10: the hourly job passes
 * the previous full hour). Event-like checks (submissions, rail movements, ledger postings) look at
 * what happened inside it; state-like checks (balances, concurrent in-flight payouts, ageing
 * ambiguity) look at the stores as they are when the run executes (ADR 0071).
 *
 * @param from inclusive start
 * @param to exclusive end, after {@code from}
 */
public record ReconciliationWindow(Instant from, Instant to) {

  public ReconciliationWindow {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    if (!from.isBefore(to)) {
      throw new IllegalArgumentException("window needs from < to, got " + from + " .. " + to);
    }
  }

  /** The full hour before the one {@code now} is in: what the hourly CronJob reconciles. */
  public static ReconciliationWindow previousHour(Instant now) {
    Instant end = now.truncatedTo(ChronoUnit.HOURS);
    return new ReconciliationWindow(end.minus(Duration.ofHours(1)), end);
  }

  public boolean contains(Instant instant) {
    return instant != null && !instant.isBefore(from) && instant.isBefore(to);
  }
}
