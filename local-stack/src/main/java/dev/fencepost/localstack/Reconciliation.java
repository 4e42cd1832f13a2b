package dev.fencepost.localstack;

import java.util.Map;

/**
 * What a reconciliation run found and resolved, as it recorded it in paydb.
 *
 * @param counts every discrepancy class with its count, zeros included
 * @param clean no discrepancy of any class
 * @param settled ambiguous payouts the rail showed settled (now RAIL_ACKED, then posted)
 * @param absent ambiguous payouts the rail showed absent after its settlement window (FAILED)
 * @param stillAmbiguous ambiguous payouts left for a later run (no evidence yet)
 * @param pages findings of page severity (duplicates, imbalance, ...): must be 0
 */
public record Reconciliation(
    Map<String, Long> counts,
    boolean clean,
    int settled,
    int absent,
    int stillAmbiguous,
    long pages) {

  /** This (later) run's findings, with the resolutions of an earlier run of the same session. */
  Reconciliation after(Reconciliation earlier) {
    return new Reconciliation(
        counts, clean, settled + earlier.settled, absent + earlier.absent, stillAmbiguous, pages);
  }

  String text() {
    StringBuilder out = new StringBuilder("  reconciliation  ");
    out.append(clean ? "clean" : "FINDINGS")
        .append(
            String.format(
                " (ambiguous payouts resolved by the rail's evidence: %d settled, %d absent)%n",
                settled, absent));
    counts.forEach(
        (discrepancy, n) -> {
          if (n > 0) {
            out.append(String.format("    %-40s %6d%n", discrepancy, n));
          }
        });
    return out.toString();
  }
}
