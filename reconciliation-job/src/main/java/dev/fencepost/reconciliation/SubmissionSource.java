package dev.fencepost.reconciliation;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The rail proxy's record of what was submitted, as the comparison reads it (ADR 0187): a window's
 * submissions a page at a time, and one payout's submission. {@link ProxyReadClient} reads them
 * from the proxy's read API; nothing here can submit. Every failure to read is a {@link
 * SourceUnavailableException}: a run fails rather than compare against part of the record.
 */
public interface SubmissionSource {

  /**
   * Every submission whose intent was recorded inside {@code window}, handed to {@code each} one
   * page at a time, in ascending submission id.
   */
  void forEachPage(ReconciliationWindow window, Consumer<List<Submission>> each);

  /** The record for one payout; empty means it was never submitted. */
  Optional<Submission> submission(String payoutId);
}
