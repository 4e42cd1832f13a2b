package dev.fencepost.experiments.harness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.payment.PayoutState;

/**
 * The end every exactly-once scenario must reach, whatever happened on the way: a history the
 * checker calls safe, the payout POSTED, one movement on the rail and one submission at the proxy.
 */
public final class PostedOnce {

  private PostedOnce() {}

  public static void assertPostedOnce(
      RunResult run, PayoutState finalState, int movements, long submissions) {
    assertThat(run.report().safe()).as(run.report().toMarkdown(run.scenario())).isTrue();
    assertThat(finalState).isEqualTo(PayoutState.POSTED);
    assertThat(movements).isEqualTo(1);
    assertThat(submissions).isEqualTo(1);
  }
}
