package dev.fencepost.railproxy;

/**
 * The result of the single rail call for one submission.
 *
 * @param outcome what is known
 * @param railReference the rail's reference when ACKED
 * @param declineCode the rail's decline code when REJECTED
 * @param detail why an ambiguous outcome is ambiguous, for the log only
 */
public record RailOutcome(
    Outcome outcome, String railReference, String declineCode, String detail) {

  static RailOutcome acked(String railReference) {
    return new RailOutcome(Outcome.ACKED, railReference, null, "201");
  }

  static RailOutcome rejected(String declineCode) {
    return new RailOutcome(Outcome.REJECTED, null, declineCode, "422");
  }

  static RailOutcome ambiguous(String detail) {
    return new RailOutcome(Outcome.TIMEOUT, null, null, detail);
  }
}
