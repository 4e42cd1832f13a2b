package dev.fencepost.reconciliation;

/**
 * What ambiguity resolution did in one run (UC-05 steps 5 and 6).
 *
 * @param examined ambiguous payouts looked up
 * @param settled moved to RAIL_ACKED because the rail shows the movement
 * @param absent moved to FAILED because the rail still shows nothing after the settlement window
 * @param awaitingEvidence left ambiguous: nothing on the rail yet, still inside the window
 * @param lookupUnavailable left ambiguous: the lookup could not answer
 * @param skipped left alone: lock busy, fenced out, or another holder moved it first
 */
public record ResolutionSummary(
    int examined,
    int settled,
    int absent,
    int awaitingEvidence,
    int lookupUnavailable,
    int skipped) {

  public static final ResolutionSummary NONE = new ResolutionSummary(0, 0, 0, 0, 0, 0);

  public int stillAmbiguous() {
    return awaitingEvidence + lookupUnavailable + skipped;
  }
}
