package dev.fencepost.experiments.uc03;

import dev.fencepost.experiments.harness.RunResult;
import dev.fencepost.experiments.uc03.Uc03PausedHolderIT.Cell;
import dev.fencepost.experiments.uc03.Uc03PausedHolderIT.FreezePoint;
import dev.fencepost.experiments.uc03.Uc03PausedHolderIT.Outcome;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The prose under the matrix: what the runs showed. Each sentence is asserted by a case of {@link
 * Uc03PausedHolderIT} (change both together), and every figure in it is read from the runs.
 */
final class Uc03Findings {

  private Uc03Findings() {}

  static String text(Map<FreezePoint, Outcome> points, Map<Cell, Outcome> cells) {
    List<FreezePoint> refused =
        List.of(FreezePoint.CLAIMED, FreezePoint.PROXY_ANSWERED, FreezePoint.RAIL_ACKED);
    String fencedEffects =
        refused.stream()
            .map(p -> String.valueOf(points.get(p).run().fencedEffects().size()))
            .collect(Collectors.joining(", "));
    String fencedOutEvents =
        refused.stream()
            .map(p -> String.valueOf(Uc03PausedHolderIT.fencedOutEvents(points.get(p).run(), "w1")))
            .collect(Collectors.joining(", "));
    RunResult b = cells.get(Cell.B_FENCE_OFF).run();
    Outcome e = cells.get(Cell.E_PROXY_GUARDS_OFF);
    Outcome f = cells.get(Cell.F_EVERYTHING_OFF);
    return """
        ## Findings

        - **Every guard on** (a, b0, the three points): nothing got through. Which guard acted \
        depends on what the stale worker tried first: the proxy's high-water for a submission \
        (after the claim), paydb's fence for a paydb write (after the proxy answered, after \
        RAIL_ACKED, and in the reclaim race). Fenced effects per takeover at the three points: \
        %s; `lock.fenced_out` events in w1's log: %s.
        - **b0 vs b, the reclaim race**: the proxy accepted w1's stale submission, because w2 had \
        not submitted yet and the proxy had never seen its token. That is not a duplicate: the \
        money moved once and w2 later found the proxy's record (409 DUPLICATE) and resolved from \
        it. With the fence on, paydb refused w1's next write (SETTLE, FENCED_OUT) and w2 \
        finished the payout. With the fence **off**, w1's writes under T1 landed after w2's \
        re-claim under T2 (`guard_accepted_lower_token` = %d): the payout was posted by %s, a \
        worker that no longer held the lock, and w2's own SETTLE was then refused by the \
        state machine (REFUSED_TRANSITION, logged as `payout.unexpected_transition_refusal`). \
        Rail movements: %d (`duplicate_rail_movement` = %d), but the books were written under a \
        stale grant: exactly the INV-05 violation the fence exists to prevent.
        - **c, high-water off**: uniqueness refused w1's second submission (DUPLICATE); w1 resolved \
        from the existing record and paydb's fence refused its write. Defence in depth: the \
        high-water was not needed in this interleaving.
        - **d, uniqueness off**: the high-water refused w1's submission (STALE_TOKEN).
        - **e, both proxy guards off**: the rail moved the money %d times \
        (`duplicate_rail_movement` = %d, %d proxy submissions, %d of them in \
        `unguarded_submission`), although paydb refused w1's write: the books show %d posting(s), \
        the rail %d movements. paydb's fence cannot stop money that has already left.
        - **f, every guard off**: the rail moved the money %d times (`duplicate_rail_movement` = \
        %d). w1's paydb write was not fenced, but the state machine refused it, because w2 had \
        already posted (POSTED is terminal, INV-08): `multiple_postings` = %d in this \
        interleaving. The state machine is not a fence; with w1 ahead of w2 (cell b) it lets the \
        stale holder's writes through.
        - The local deadline check (`uc03-claimed-local-check`) stopped the thawed worker before \
        any guard in the run where the pause came before the check (%d fenced effects): liveness, \
        not safety (ADR 0021: the token is the safety mechanism). The other runs place the pause \
        just after the check (`pause-lands-after-check`), which the starter cannot prevent.
        """
        .formatted(
            fencedEffects,
            fencedOutEvents,
            b.count("guard_accepted_lower_token"),
            Uc03Evidence.postedBy(b),
            cells.get(Cell.B_FENCE_OFF).movements(),
            b.count("duplicate_rail_movement"),
            e.movements(),
            e.run().count("duplicate_rail_movement"),
            e.submissions(),
            unguarded(e.run()),
            postings(e.run()),
            e.movements(),
            f.movements(),
            f.run().count("duplicate_rail_movement"),
            f.run().count("multiple_postings"),
            points.get(FreezePoint.CLAIMED_LOCAL_CHECK).run().fencedEffects().size());
  }

  /** Proxy submissions that went through with the proxy's guards off. */
  static long unguarded(RunResult run) {
    return run.history().submissions.stream().filter(s -> !s.guarded()).count();
  }

  /** Transitions to POSTED: how many times the books say the payout was paid. */
  static long postings(RunResult run) {
    return run.history().transitions.stream().filter(t -> "POSTED".equals(t.to())).count();
  }
}
