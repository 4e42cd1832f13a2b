package dev.fencepost.payoutjob;

import org.springframework.batch.infrastructure.repeat.CompletionPolicy;
import org.springframework.batch.infrastructure.repeat.RepeatContext;
import org.springframework.batch.infrastructure.repeat.RepeatStatus;
import org.springframework.batch.infrastructure.repeat.context.RepeatContextSupport;

/**
 * When a chunk of payoutStep is complete (ADR 0207): after {@code commitInterval} payouts, or as
 * soon as the reader has no candidate ready for this thread, whichever comes first. The second rule
 * is what makes a chunk of more than one payout safe: the reader may wait only at a chunk's start,
 * because a thread that waited while holding candidates it has not executed could be waiting for
 * its own accounts (a candidate's account stays in flight until its attempt ends).
 *
 * <p>A chunk is one job-repository commit in batchdb; a payout's own effects are committed in paydb
 * and the proxy as its attempt goes, whatever the chunk's size. Shared by every payout thread of
 * the step: its state is in each chunk's {@link RepeatContext}.
 */
final class ReadyCandidatesPolicy implements CompletionPolicy {

  private final PayoutCandidateReader reader;
  private final int commitInterval;

  ReadyCandidatesPolicy(PayoutCandidateReader reader, int commitInterval) {
    if (commitInterval < 1) {
      throw new IllegalArgumentException("commitInterval must be at least 1: " + commitInterval);
    }
    this.reader = reader;
    this.commitInterval = commitInterval;
  }

  @Override
  public RepeatContext start(RepeatContext parent) {
    return new RepeatContextSupport(parent);
  }

  @Override
  public void update(RepeatContext context) {
    ((RepeatContextSupport) context).increment();
  }

  @Override
  public boolean isComplete(RepeatContext context) {
    return context.getStartedCount() >= commitInterval;
  }

  /**
   * Called after each read. The reader's prefetch comes last, and only while the chunk has room: a
   * candidate it takes is this thread's, and the next read of this chunk returns it.
   */
  @Override
  public boolean isComplete(RepeatContext context, RepeatStatus result) {
    return result == null || !result.isContinuable() || isComplete(context) || !reader.prefetch();
  }
}
