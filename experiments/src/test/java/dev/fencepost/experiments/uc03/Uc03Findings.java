package dev.fencepost.experiments.uc03;

/**
 * The prose under the matrix: what the runs showed. Each sentence is asserted by a test of {@link
 * Uc03PausedHolderIT}; change both together.
 */
final class Uc03Findings {

  private Uc03Findings() {}

  static final String TEXT =
      """
      ## Findings

      - **Every guard on** (a, b0, the three points): nothing got through. Which guard acted \
      depends on what the stale worker tried first: the proxy's high-water for a submission \
      (after the claim), paydb's fence for a paydb write (after the proxy answered, after \
      RAIL_ACKED, and in the reclaim race). One fenced effect and one `lock.fenced_out` event per \
      takeover.
      - **b0 vs b, the reclaim race**: the proxy accepted w1's stale submission, because w2 had \
      not submitted yet and the proxy had never seen its token. That is not a duplicate: the \
      money moved once and w2 later found the proxy's record (409 DUPLICATE) and resolved from \
      it. With the fence on, paydb refused w1's next write (MARK_SUBMITTED, FENCED_OUT) and w2 \
      finished the payout. With the fence **off**, w1's three writes under T1 landed after w2's \
      re-claim under T2 (`guard_accepted_lower_token` = 3): the payout was posted by a worker \
      that no longer held the lock, and w2's own MARK_SUBMITTED was then refused by the state \
      machine (REFUSED_TRANSITION, logged as `payout.unexpected_transition_refusal`). No money \
      was duplicated here, but the books were written under a stale grant: exactly the INV-05 \
      violation the fence exists to prevent.
      - **c, high-water off**: uniqueness refused w1's second submission (DUPLICATE); w1 resolved \
      from the existing record and paydb's fence refused its write. Defence in depth: the \
      high-water was not needed in this interleaving.
      - **d, uniqueness off**: the high-water refused w1's submission (STALE_TOKEN).
      - **e, both proxy guards off**: the rail moved the money **twice** \
      (`duplicate_rail_movement` = 1, two proxy submissions, one of them in \
      `unguarded_submission`), although paydb refused w1's write: the books show one posting, \
      the rail two movements. paydb's fence cannot stop money that has already left.
      - **f, every guard off**: the same duplicate movement as e. w1's paydb write was not \
      fenced, but the state machine refused it, because w2 had already posted (POSTED is \
      terminal, INV-08): `multiple_postings` stayed 0 in this interleaving. The state machine \
      is not a fence; with w1 ahead of w2 (cell b) it lets the stale holder's writes through.
      - The local deadline check (`uc03-claimed-local-check`) stopped the thawed worker before \
      any guard in the run where the pause came before the check: liveness, not safety. The \
      other runs place the pause just after the check (`pause-lands-after-check`), which the \
      starter cannot prevent (docs/lock-starter.md, liveness and safety).
      """;
}
