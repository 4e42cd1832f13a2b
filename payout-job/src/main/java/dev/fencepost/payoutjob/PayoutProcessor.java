package dev.fencepost.payoutjob;

import dev.fencepost.payment.Payout;
import org.springframework.batch.infrastructure.item.ItemProcessor;

/**
 * payoutStep's processor: one candidate's attempt, and the payouts of its account that the
 * candidate's grant goes on to (ADR 0236), each counted in the step's tally as it ends. A candidate
 * that moved on since it was read is dropped without asking for a lock (ADR 0207); one whose lock
 * another worker holds is filtered as skipped (UC-02). Whatever happens, the reader learns that the
 * candidate's attempt ended, so its account may be handed out again.
 *
 * <p>The grant goes on only while the reader allows it: not while another payout thread of the
 * process waits for work and this one still holds candidates it has not reached (ADR 0237), and for
 * no more payouts than the candidate's page counted on its account (ADR 0238).
 */
final class PayoutProcessor implements ItemProcessor<Payout, PayoutResult> {

  private final PayoutCandidateReader reader;
  private final PayoutExecutor executor;
  private final PayoutStepTally tally;
  private final int payoutsPerGrant;

  PayoutProcessor(
      PayoutCandidateReader reader,
      PayoutExecutor executor,
      PayoutStepTally tally,
      int payoutsPerGrant) {
    this.reader = reader;
    this.executor = executor;
    this.tally = tally;
    this.payoutsPerGrant = payoutsPerGrant;
  }

  /** The candidate's result, or null when it was filtered (dropped as stale, or lock held). */
  @Override
  public PayoutResult process(Payout candidate) {
    PayoutResult result;
    try {
      if (!reader.turnCame(candidate)) {
        tally.stale();
        return null;
      }
      result =
          executor.execute(
              candidate,
              reader.payoutsForGrant(candidate, payoutsPerGrant),
              reader::grantMayGoOn,
              (ended, nanos) -> tally.record(ended.outcome(), nanos));
    } finally {
      reader.done(candidate);
    }
    return result.outcome() == PayoutOutcome.SKIPPED_LOCK_HELD ? null : result;
  }
}
