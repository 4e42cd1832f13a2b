package dev.fencepost.reconciliation;

import java.util.List;

/**
 * What ambiguity resolution did in one run (UC-05 steps 5 and 6).
 *
 * @param examined ambiguous payouts looked up
 * @param settled moved to RAIL_ACKED because the rail shows the movement
 * @param absent moved to FAILED because the rail still shows nothing after the settlement window
 * @param awaitingEvidence left ambiguous: nothing on the rail yet, still inside the window
 * @param lookupUnavailable left ambiguous: the lookup could not answer
 * @param skipped left alone: lock busy, fenced out, or another holder moved it first
 * @param contentMismatches left ambiguous for an operator: the proxy's record under the payout's id
 *     is not this payout (ADR 0140); each is a finding of the run
 */
public record ResolutionSummary(
    int examined,
    int settled,
    int absent,
    int awaitingEvidence,
    int lookupUnavailable,
    int skipped,
    List<Finding> contentMismatches) {

  public static final ResolutionSummary NONE = new ResolutionSummary(0, 0, 0, 0, 0, 0, List.of());

  public ResolutionSummary {
    contentMismatches = List.copyOf(contentMismatches);
  }

  public int stillAmbiguous() {
    return awaitingEvidence + lookupUnavailable + skipped + contentMismatches.size();
  }
}
