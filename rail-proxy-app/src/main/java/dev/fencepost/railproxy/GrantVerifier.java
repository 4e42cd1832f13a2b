package dev.fencepost.railproxy;

/**
 * Decides whether a submission's signed grant was issued by the lock server for exactly this
 * account and token, and is still valid (ADR 0137). Runs before anything else of a submission.
 */
public interface GrantVerifier {

  /**
   * @throws GrantRefusedException the grant is missing, forged, expired or for another key or token
   * @throws GrantKeysUnavailableException the lock server's keys could not be obtained: nothing can
   *     be decided, and nothing is recorded or sent
   */
  void verify(SubmissionRequest request);
}
