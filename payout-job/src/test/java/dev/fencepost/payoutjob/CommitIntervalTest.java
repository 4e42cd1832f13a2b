package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.batch.core.BatchStatus;
import org.springframework.batch.core.job.JobExecution;
import org.springframework.batch.core.step.StepExecution;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * payoutStep commits its job-repository bookkeeping once per chunk of payouts, not once per payout
 * (ADR 0207), and a chunk changes nothing about how each payout is executed: every payout is posted
 * once, with one submission and one rail movement, including an account's payouts that become
 * candidates one after another.
 */
@Tag("UC-01")
@Tag("A-15")
class CommitIntervalTest {

  private static Platform platform;

  @BeforeAll
  static void start() {
    platform = Platform.shared();
  }

  @Test
  void theJobRepositoryCommitsOncePerChunkOfPayoutsNotOncePerPayout() throws Exception {
    List<Payout> payouts = payouts("chunked");

    StepExecution step = runWith("--fencepost.payout.commit-interval=10");

    assertEachPostedOnce(payouts);
    assertThat(step.getReadCount()).isGreaterThanOrEqualTo(payouts.size());
    assertThat(step.getCommitCount())
        .as("commits for %s payouts read", step.getReadCount())
        .isLessThan(step.getReadCount() / 2);
  }

  @Test
  void aCommitIntervalOfOneCommitsAfterEveryPayout() throws Exception {
    List<Payout> payouts = payouts("one-by-one");

    StepExecution step = runWith("--fencepost.payout.commit-interval=1");

    assertEachPostedOnce(payouts);
    assertThat(step.getCommitCount()).isGreaterThan(step.getReadCount());
  }

  /** Twenty accounts with one payout each, and one account with four. */
  private static List<Payout> payouts(String prefix) {
    List<Payout> payouts = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      payouts.addAll(platform.accountWithPayouts(prefix, 10_000, 1, 100));
    }
    payouts.addAll(platform.accountWithPayouts(prefix + "-drained", 10_000, 4, 100));
    return payouts;
  }

  /**
   * One payout per grant, so that the account with four is drained through the reader, each of its
   * payouts a candidate of its own once the one before it has finished (a grant that went on to
   * them would read one candidate for four payouts, ADR 0236).
   */
  private static StepExecution runWith(String commitInterval) throws Exception {
    ConfigurableApplicationContext worker =
        platform.worker(commitInterval, "--fencepost.payout.payouts-per-grant=1");
    try {
      JobExecution run = Platform.run(worker);
      assertThat(run.getStatus()).isEqualTo(BatchStatus.COMPLETED);
      return run.getStepExecutions().iterator().next();
    } finally {
      worker.close();
    }
  }

  private static void assertEachPostedOnce(List<Payout> payouts) {
    for (Payout payout : payouts) {
      assertThat(platform.reload(payout).state())
          .as("state of %s", payout.id())
          .isEqualTo(PayoutState.POSTED);
      assertThat(platform.movements(payout.id())).as("movements of %s", payout.id()).isEqualTo(1);
      assertThat(platform.submissions(payout.id())).isEqualTo(1);
    }
  }
}
