package dev.fencepost.experiments.uc03;

import dev.fencepost.experiments.harness.Evidence;
import dev.fencepost.experiments.harness.RunResult;
import dev.fencepost.experiments.uc03.Uc03PausedHolderIT.Outcome;
import dev.fencepost.history.Records;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** docs/evidence/uc03.md from the runs of {@link Uc03PausedHolderIT}. */
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

  static final Map<String, String> POINTS = new LinkedHashMap<>();
  static final Map<String, String> CELLS = new LinkedHashMap<>();

  static {
    POINTS.put(
        "uc03-claimed",
        "w1 claimed the payout (token T1) and froze before submitting. w2 found it CLAIMED with no"
            + " proxy record, re-claimed it under T2 and completed it. Thawed, w1 submitted under T1:"
            + " the proxy's high-water (T2) refused it (409 STALE_TOKEN), w1 logged `lock.fenced_out`"
            + " (guard=rail-proxy) and stopped.");
    POINTS.put(
        "uc03-proxy-answered",
        "w1 submitted (the proxy recorded the intent, the rail moved the money, the proxy recorded"
            + " ACKED) and froze before recording it in paydb. w2 found it CLAIMED with an ACKED"
            + " record, so it never resubmitted: it recorded the outcome and posted under T2. Thawed,"
            + " w1 tried CLAIMED to RAIL_SUBMITTED under T1: paydb's fence refused it (FENCED_OUT,"
            + " `lock.fenced_out` guard=paydb).");
    POINTS.put(
        "uc03-rail-acked",
        "w1 recorded RAIL_ACKED and froze before posting. w2 found RAIL_ACKED and posted under T2."
            + " Thawed, w1 tried to post under T1: paydb's fence refused it (FENCED_OUT).");
    POINTS.put(
        "uc03-claimed-local-check",
        "The same interleaving as the first, but the pause is where the failpoint is, before the"
            + " starter's `ensureHeld()` check. Thawed, w1's local deadline (3 s TTL minus the 30 %"
            + " margin) had long passed: `ensureHeld()` threw LockLostException and w1 ended"
            + " LOCK_LOST without attempting anything. This is the starter's liveness check doing"
            + " its job; the three runs above model the pause it cannot prevent (a freeze a moment"
            + " after the check passed, `pause-lands-after-check`), where only the guards stand.");
    CELLS.put("uc03-claimed", "a. every guard on (reference, claim interleaving)");
    CELLS.put("uc03-b-fence-on", "b0. every guard on (reclaim race)");
    CELLS.put("uc03-b-fence-off", "b. resource fence off (reclaim race)");
    CELLS.put("uc03-c-high-water-off", "c. high-water off");
    CELLS.put("uc03-d-uniqueness-off", "d. uniqueness off");
    CELLS.put("uc03-e-proxy-guards-off", "e. high-water and uniqueness off");
    CELLS.put("uc03-f-everything-off", "f. every guard off");
  }

  static void write(Map<String, Outcome> results) {
    Evidence evidence =
        new Evidence(
                "uc03",
                "UC-03: a worker paused past its lease (issue 9, SC-03)",
                Uc03PausedHolderIT.class)
            .paragraph(
                """
                Real processes on one host: embedded PostgreSQL, the lock server (PostgreSQL \
                backend), the rail proxy and the rail stub from their exec jars, and payout workers \
                from the experiments module's exec jar (lock TTL 3 s). The harness parks worker w1 \
                at a point of one payout, SIGSTOPs it there, lets its lease run out, starts w2, \
                waits until w2 has finished the payout, then SIGCONTs w1, which goes on under its \
                old token T1 (w2 holds T2 > T1). Each section is one run's checker report and \
                timeline; the last table is the negative-control matrix (D8). Every run is an \
                automated test (`Uc03PausedHolderIT`) that asserts what is shown here; the run \
                directories are under `experiments/target/runs/`.""");
    for (Map.Entry<String, String> point : POINTS.entrySet()) {
      Outcome o = results.get(point.getKey());
      if (o != null) {
        evidence.scenario(o.run().title(), point.getValue() + "\n\n" + whatW1Did(o), o.run());
      }
    }
    Map<String, RunResult> cells = new LinkedHashMap<>();
    StringBuilder table =
        new StringBuilder(
            "## What got through, per cell\n\n| cell | guards | w1 (stale) attempted | rail"
                + " movements | proxy submissions | final state | posted by |\n"
                + "|---|---|---|---:|---:|---|---|\n");
    for (Map.Entry<String, String> cell : CELLS.entrySet()) {
      Outcome o = results.get(cell.getKey());
      if (o == null) {
        continue;
      }
      cells.put(cell.getValue(), o.run());
      table
          .append("| ")
          .append(cell.getValue())
          .append(" | ")
          .append(guardsOf(o))
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
          .append(" |\n");
    }
    evidence.matrix("Negative-control matrix (D8): safety counters per cell", cells, COUNTERS);
    evidence.paragraph(table.toString());
    evidence.paragraph(Uc03Findings.TEXT);
    for (Map.Entry<String, String> cell : CELLS.entrySet()) {
      Outcome o = results.get(cell.getKey());
      if (o != null && !POINTS.containsKey(cell.getKey())) {
        evidence.scenario("Cell " + cell.getValue(), whatW1Did(o), o.run());
      }
    }
    evidence.write();
  }

  static String guardsOf(Outcome o) {
    String dir = o.run().scenario();
    return switch (dir) {
      case "uc03-b-fence-off" -> "fence off";
      case "uc03-c-high-water-off" -> "high-water off";
      case "uc03-d-uniqueness-off" -> "uniqueness off";
      case "uc03-e-proxy-guards-off" -> "high-water, uniqueness off";
      case "uc03-f-everything-off" -> "all off";
      default -> "all on";
    };
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

  static List<Records.Effect> none() {
    return List.of();
  }
}
