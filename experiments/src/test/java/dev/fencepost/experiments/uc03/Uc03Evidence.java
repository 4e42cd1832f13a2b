package dev.fencepost.experiments.uc03;

import dev.fencepost.experiments.harness.Evidence;
import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.RunResult;
import dev.fencepost.experiments.uc03.Uc03PausedHolderIT.Cell;
import dev.fencepost.experiments.uc03.Uc03PausedHolderIT.FreezePoint;
import dev.fencepost.experiments.uc03.Uc03PausedHolderIT.Outcome;
import dev.fencepost.lock.client.autoconfigure.LockClientProperties;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * docs/evidence/uc03.md from the runs of {@link Uc03PausedHolderIT}, written once all of them
 * passed: every figure in it is read from those runs.
 */
final class Uc03Evidence {

  private Uc03Evidence() {}

  static final List<String> COUNTERS =
      List.of(
          "duplicate_rail_movement",
          "multiple_postings",
          "guard_accepted_lower_token",
          "movement_for_ambiguous_payout",
          "effect_without_grant",
          "balance_not_ledger_sum");

  /** The matrix's reference cell: the claim interleaving with every guard on. */
  static final String CELL_A = "a. every guard on (reference, claim interleaving)";

  /** What each freeze point's run shows, above its checker report. */
  static String prose(FreezePoint point) {
    return switch (point) {
      case CLAIMED ->
          "w1 claimed the payout (token T1) and froze before submitting. w2 found it CLAIMED with"
              + " no proxy record, re-claimed it under T2 and completed it. Thawed, w1 submitted"
              + " under T1: the proxy's high-water (T2) refused it (409 STALE_TOKEN), w1 logged"
              + " `lock.fenced_out` (guard=rail-proxy) and stopped.";
      case PROXY_ANSWERED ->
          "w1 submitted (the proxy recorded the intent, the rail moved the money, the proxy"
              + " recorded ACKED) and froze before recording it in paydb. w2 found it CLAIMED with"
              + " an ACKED record, so it never resubmitted: it recorded the outcome and posted"
              + " under T2. Thawed, w1 tried CLAIMED to RAIL_SUBMITTED under T1: paydb's fence"
              + " refused it (FENCED_OUT, `lock.fenced_out` guard=paydb).";
      case RAIL_ACKED ->
          "w1 recorded RAIL_ACKED and froze before posting. w2 found RAIL_ACKED and posted under"
              + " T2. Thawed, w1 tried to post under T1: paydb's fence refused it (FENCED_OUT).";
      case CLAIMED_LOCAL_CHECK ->
          "The same interleaving as the first, but the pause is where the failpoint is, before"
              + " the starter's `ensureHeld()` check. Thawed, w1's local deadline ("
              + ExperimentRun.LOCK_TTL
              + " TTL minus the "
              + Math.round(new LockClientProperties().getSafetyMargin() * 100)
              + " % margin) had long passed: `ensureHeld()` threw LockLostException and w1 ended"
              + " LOCK_LOST without attempting anything. This is the starter's liveness check"
              + " doing its job; the runs above model the pause it cannot prevent (a freeze a"
              + " moment after the check passed, `pause-lands-after-check`), where only the guards"
              + " stand.";
    };
  }

  static void write(Map<String, Outcome> results) {
    Map<FreezePoint, Outcome> points = new EnumMap<>(FreezePoint.class);
    for (FreezePoint p : FreezePoint.values()) {
      points.put(p, Objects.requireNonNull(results.get(p.scenario), p.scenario));
    }
    Map<Cell, Outcome> cells = new EnumMap<>(Cell.class);
    for (Cell c : Cell.values()) {
      cells.put(c, Objects.requireNonNull(results.get(c.scenario), c.scenario));
    }
    Evidence evidence =
        new Evidence("uc03", "UC-03: a worker paused past its lease", Uc03PausedHolderIT.class)
            .paragraph(
                """
                Real processes on one host: embedded PostgreSQL, the lock server (PostgreSQL \
                backend), the rail proxy and the rail stub from their exec jars, and payout workers \
                from the experiments module's exec jar (lock TTL %s). The harness parks worker w1 \
                at a point of one payout, SIGSTOPs it there, lets its lease run out, starts w2, \
                waits until w2 has finished the payout, then SIGCONTs w1, which goes on under its \
                old token T1 (w2 holds T2 > T1). Each section is one run's checker report and \
                timeline; the last table is the negative-control matrix (the experiment-only \
                switches of ADR 0035 and ADR 0043). Every run is an automated test \
                (`Uc03PausedHolderIT`) that asserts what is shown here; the run directories are \
                under `experiments/target/runs/`."""
                    .formatted(ExperimentRun.LOCK_TTL));
    points.forEach(
        (point, o) ->
            evidence.scenario(o.run().title(), prose(point) + "\n\n" + whatW1Did(o), o.run()));
    Map<String, Outcome> matrix = new LinkedHashMap<>();
    matrix.put(CELL_A, points.get(FreezePoint.CLAIMED));
    cells.forEach((cell, o) -> matrix.put(cell.label, o));
    StringBuilder table =
        new StringBuilder(
            "## What got through, per cell\n\n| cell | guards | w1 (stale) attempted | rail"
                + " movements | proxy submissions | final state | posted by |\n"
                + "|---|---|---|---:|---:|---|---|\n");
    matrix.forEach(
        (label, o) ->
            table
                .append("| ")
                .append(label)
                .append(" | ")
                .append(o.guards().offSummary())
                .append(" | ")
                .append(effects(o.run(), "w1"))
                .append(" | ")
                .append(o.movements())
                .append(" | ")
                .append(o.submissions())
                .append(" | ")
                .append(o.finalState())
                .append(" | ")
                .append(postedBy(o.run()))
                .append(" |\n"));
    Map<String, RunResult> runs = new LinkedHashMap<>();
    matrix.forEach((label, o) -> runs.put(label, o.run()));
    evidence.matrix(
        "Negative-control matrix (ADR 0035, ADR 0043): safety counters per cell", runs, COUNTERS);
    evidence.paragraph(table.toString());
    evidence.paragraph(Uc03Findings.text(points, cells));
    cells.forEach((cell, o) -> evidence.scenario("Cell " + cell.label, whatW1Did(o), o.run()));
    evidence.write();
  }

  static String effects(RunResult run, String worker) {
    return run.effectsOf(worker).stream()
        .map(e -> e.what() + " T" + e.token() + " " + e.outcome())
        .collect(Collectors.joining(", "));
  }

  static String postedBy(RunResult run) {
    return run.history().transitions.stream()
        .filter(t -> "POSTED".equals(t.to()))
        .map(t -> t.actor() + " (T" + t.token() + ")")
        .collect(Collectors.joining(", "));
  }

  static String whatW1Did(Outcome o) {
    return "Effects attempted: w1 "
        + effects(o.run(), "w1")
        + "; w2 "
        + effects(o.run(), "w2")
        + ". Rail movements: "
        + o.movements()
        + ", proxy submissions: "
        + o.submissions()
        + ", final state: "
        + o.finalState()
        + ", posted by: "
        + postedBy(o.run())
        + ".";
  }
}
