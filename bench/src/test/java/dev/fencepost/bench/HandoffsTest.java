package dev.fencepost.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The hand-off bookkeeping on scripted sequences (times in ns, chosen by hand): every grant after a
 * release is a sample timed from that release, whoever got it.
 */
class HandoffsTest {

  @Test
  void aReleaseFollowedByTheNextGrantIsOneSampleTimedFromTheRelease() {
    Handoffs h = new Handoffs(2);
    h.granted(0, 0, 100);
    h.releasing(0, 1_000);
    h.granted(1, 50, 1_500);

    Handoffs.Tally t = h.tally();
    assertThat(t.grants).isEqualTo(2);
    assertThat(t.firstGrants).isEqualTo(1);
    assertThat(t.samples).isEqualTo(1);
    assertThat(t.latency.getMaxValue()).isEqualTo(t.latency.highestEquivalentValue(500));
    assertThat(t.sameClient).isZero();
    assertThat(t.maxWaitNanos).isEqualTo(1_450);
    assertThat(t.accountsForEveryGrant()).isTrue();
  }

  @Test
  void aClientThatTakesTheLockStraightBackIsAHandOffToItself() {
    Handoffs h = new Handoffs(3);
    h.granted(0, 0, 10);
    h.releasing(0, 20);
    h.granted(0, 21, 22); // the releaser again: counted, and counted as same-client
    h.releasing(0, 30);
    h.granted(2, 5, 40);

    Handoffs.Tally t = h.tally();
    assertThat(t.samples).isEqualTo(2);
    assertThat(t.sameClient).isEqualTo(1);
    assertThat(t.sameClientShare()).isEqualTo(0.5);
    assertThat(t.latency.getTotalCount()).isEqualTo(2);
    assertThat(t.toAnother.getTotalCount()).isEqualTo(1);
    assertThat(t.runs).containsExactly(new long[] {1, 0, 1});
  }

  @Test
  void handOffsWhoseReleaseWasInTheWarmUpAreCountedApart() {
    Handoffs h = new Handoffs(2);
    h.windowFrom(1_000);
    h.granted(0, 0, 10);
    h.releasing(0, 900);
    h.granted(1, 0, 1_100); // released before the window: warm-up
    h.releasing(1, 1_200);
    h.granted(0, 950, 1_300); // measured

    Handoffs.Tally t = h.tally();
    assertThat(t.warmUpHandoffs).isEqualTo(1);
    assertThat(t.samples).isEqualTo(1);
    assertThat(t.grants).isEqualTo(3);
    assertThat(t.accountsForEveryGrant()).isTrue();
  }

  @Test
  void handOffsReleasedAfterTheWindowClosedAreTheDrainNotSamples() {
    Handoffs h = new Handoffs(2);
    h.windowUntil(1_000);
    h.granted(0, 0, 10);
    h.releasing(0, 500);
    h.granted(1, 0, 600); // measured
    h.releasing(1, 1_000);
    h.granted(0, 0, 1_100); // released as the window closed: the queue draining

    Handoffs.Tally t = h.tally();
    assertThat(t.samples).isEqualTo(1);
    assertThat(t.drainHandoffs).isEqualTo(1);
    assertThat(t.accountsForEveryGrant()).isTrue();
  }

  @Test
  void aWaiterThatGaveUpCountsTowardsTheLongestWait() {
    Handoffs h = new Handoffs(2);
    h.granted(0, 0, 10);
    h.waitFailed(1, 5, 20_005);

    Handoffs.Tally t = h.tally();
    assertThat(t.failedWaits).isEqualTo(1);
    assertThat(t.maxWaitNanos).isEqualTo(20_000);
    assertThat(t.samples).isZero();
  }

  @Test
  void aGrantWhileTheHarnessStillSeesAHolderIsAnOverlap() {
    Handoffs h = new Handoffs(2);
    h.granted(0, 0, 10);
    h.granted(1, 0, 20);

    assertThat(h.tally().overlaps).isEqualTo(1);
  }

  @Test
  void withoutAnOverlapThereIsNone() {
    Handoffs h = new Handoffs(2);
    h.granted(0, 0, 10);
    h.releasing(0, 11);
    h.granted(1, 0, 20);

    assertThat(h.tally().overlaps).isZero();
  }

  @Test
  void mergedRoundsKeepTheWorstRoundsFairness() {
    Handoffs even = new Handoffs(2);
    Handoffs skewed = new Handoffs(2);
    long t = 0;
    even.granted(0, t, ++t);
    for (int i = 0; i < 4; i++) {
      even.releasing(i % 2, ++t);
      even.granted((i + 1) % 2, t, ++t);
    }
    skewed.granted(0, t, ++t);
    for (int i = 0; i < 4; i++) {
      skewed.releasing(0, ++t);
      skewed.granted(0, t, ++t);
    }
    Handoffs.Tally merged = even.tally();
    merged.add(skewed.tally());

    // even: grants {2, 2} -> 1.0; skewed: {4, 0} -> 0.5. Pooled {6, 2} would say 0.8.
    assertThat(merged.worstJain()).isEqualTo(0.5);
    assertThat(merged.minGrantsPerClient()).isZero();
    assertThat(merged.maxGrantsPerClient()).isEqualTo(4);
    assertThat(merged.samples).isEqualTo(8);
    assertThat(merged.sameClient).isEqualTo(4);
  }
}
