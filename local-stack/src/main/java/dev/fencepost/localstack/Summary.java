package dev.fencepost.localstack;

import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * What a run did, from the stores: paydb states, the stub's movements (the ground truth), the
 * ledger assertions and the guards' refusals.
 *
 * @param payouts payouts seeded
 * @param accounts accounts seeded
 * @param workers worker processes per round
 * @param backend lock backend
 * @param states payouts per state at the end
 * @param railMovements movements the rail received
 * @param posted POSTED payouts (each should be exactly one movement)
 * @param duplicates movements beyond the first for a client reference (INV-02: must be 0)
 * @param ledgerBalanced INV-03 assertions all clean
 * @param fencedOut refusals of a stale token at either guard
 * @param rounds worker rounds run
 * @param elapsedMillis from the first worker's start to the last one's end (a reconciliation
 *     between two rounds of workers included)
 * @param payoutsPerSecond payouts brought to POSTED, FAILED or RAIL_AMBIGUOUS per second
 * @param p50Millis median claim-to-POSTED time of POSTED payouts (paydb timestamps)
 * @param p99Millis 99th percentile of the same
 * @param walSyncsPerPayout PostgreSQL WAL fsyncs (pg_stat_wal, whole server) per finished payout
 * @param logDir where every log of the run is (services, workers, reconciliation, this program)
 * @param measures the benchmark's figures (latency of attempts, throughput windows, the rail)
 * @param reconciliation what reconciliation found after the workers (null before it ran)
 */
public record Summary(
    int payouts,
    int accounts,
    int workers,
    String backend,
    Map<String, Long> states,
    long railMovements,
    long posted,
    long duplicates,
    boolean ledgerBalanced,
    long fencedOut,
    int rounds,
    long elapsedMillis,
    double payoutsPerSecond,
    double p50Millis,
    double p99Millis,
    double walSyncsPerPayout,
    String logDir,
    Measures measures,
    Reconciliation reconciliation) {

  /** The same summary with the reconciliation that followed the workers. */
  public Summary with(Reconciliation reconciliation) {
    return new Summary(
        payouts,
        accounts,
        workers,
        backend,
        states,
        railMovements,
        posted,
        duplicates,
        ledgerBalanced,
        fencedOut,
        rounds,
        elapsedMillis,
        payoutsPerSecond,
        p50Millis,
        p99Millis,
        walSyncsPerPayout,
        logDir,
        measures,
        reconciliation);
  }

  /** The run kept the promises: no duplicate, balanced ledger, no page-level finding. */
  public boolean healthy() {
    return duplicates == 0
        && ledgerBalanced
        && (reconciliation == null || reconciliation.pages() == 0);
  }

  /** The summary for a person; {@code benchmark} adds the benchmark's figures. */
  String text(boolean benchmark) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            "%nFencepost local run: %d payouts over %d accounts, %d workers, %s lock backend%n",
            payouts, accounts, workers, backend));
    out.append("  payouts by final state:\n");
    states.forEach(
        (state, n) -> {
          if (n > 0) {
            out.append(String.format("    %-15s %6d%n", state, n));
          }
        });
    out.append(
        String.format(
            "  rail movements  %6d   against %d POSTED payouts"
                + " (the rest moved money under an ambiguous outcome)%n",
            railMovements, posted));
    out.append(String.format("  duplicates      %6d   (must be 0)%n", duplicates));
    out.append(String.format("  ledger balanced %6s%n", ledgerBalanced ? "yes" : "NO"));
    out.append(String.format("  fenced out      %6d%n", fencedOut));
    out.append(
        String.format(
            "  elapsed         %6.1f s in %d round(s), %.1f payouts/s%n",
            elapsedMillis / 1000.0, rounds, payoutsPerSecond));
    out.append(
        String.format(
            "  claim to POSTED p50 %.0f ms, p99 %.0f ms; WAL fsyncs per payout %.1f%n",
            p50Millis, p99Millis, walSyncsPerPayout));
    if (benchmark && measures != null) {
      out.append(measures.text());
    }
    if (reconciliation != null) {
      out.append(reconciliation.text());
    }
    out.append("  logs            ").append(logDir).append('\n');
    if (states.getOrDefault("PENDING", 0L) > 0) {
      out.append(
          "  (PENDING payouts wait behind an ambiguous payout of their account: one in flight per"
              + " account, A-15; the reconciler resolves ambiguity)\n");
    }
    return out.toString();
  }

  String json() {
    return JsonMapper.builder().build().writerWithDefaultPrettyPrinter().writeValueAsString(this);
  }
}
