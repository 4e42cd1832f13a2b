package dev.fencepost.reconciliation;

import java.util.List;

/**
 * The answer of the rail's read-only lookup by client reference, through the proxy. Only a
 * {@link Found} or a {@link NotFound} is evidence; {@link Unavailable} is the absence of evidence
 * and resolves nothing (UC-05 alternate).
 */
public sealed interface RailLookup {

  /** The rail shows at least one settled movement. */
  record Found(List<RailMovement> movements) implements RailLookup {}

  /** The rail answered and shows no movement (yet: the lookup is eventually consistent, A-08). */
  record NotFound() implements RailLookup {}

  /** The lookup could not be made or answered; nothing can be concluded. */
  record Unavailable(String reason) implements RailLookup {}
}
