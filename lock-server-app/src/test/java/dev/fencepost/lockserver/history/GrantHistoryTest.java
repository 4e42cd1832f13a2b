package dev.fencepost.lockserver.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.lockserver.history.GrantHistory.Grant;
import org.junit.jupiter.api.Test;

/** The checker must catch each kind of broken history it exists to catch. */
class GrantHistoryTest {

  @Test
  void sequentialGrantsWithRisingTokensAreClean() {
    GrantHistory history = new GrantHistory();
    history.record(new Grant("k", 1, "a", 0, 10, 20));
    history.record(new Grant("k", 2, "b", 15, 25, 30));
    assertThat(history.overlaps()).isEmpty();
    assertThat(history.tokenRegressions()).isEmpty();
  }

  @Test
  void aGrantIssuedBeforeThePreviousWasReleasedIsAnOverlap() {
    GrantHistory history = new GrantHistory();
    history.record(new Grant("k", 1, "a", 0, 10, 50));
    history.record(new Grant("k", 2, "b", 15, 25, 60));
    assertThat(history.overlaps()).hasSize(1);
  }

  @Test
  void aLowerTokenIssuedLaterIsARegression() {
    GrantHistory history = new GrantHistory();
    history.record(new Grant("k", 5, "a", 0, 10, 20));
    history.record(new Grant("k", 4, "b", 30, 40, 50));
    assertThat(history.tokenRegressions()).hasSize(1);
  }

  @Test
  void aTokenDrawnEarlyButGrantedAfterAHigherOneIsARegressionEvenWithConcurrentCalls() {
    GrantHistory history = new GrantHistory();
    // b's acquire started first and drew 89, but was granted only after a (95) came and went.
    history.record(new Grant("k", 95, "a", 10, 20, 30));
    history.record(new Grant("k", 89, "b", 0, 40, 50));
    assertThat(history.overlaps()).isEmpty();
    assertThat(history.tokenRegressions()).hasSize(1);
  }

  @Test
  void theSameTokenForTwoClientsIsARegression() {
    GrantHistory history = new GrantHistory();
    history.record(new Grant("k", 7, "a", 0, 10, 20));
    history.record(new Grant("j", 7, "b", 0, 10, 20));
    assertThat(history.tokenRegressions()).isNotEmpty();
  }

  @Test
  void overlappingCallsOnDifferentKeysAreFine() {
    GrantHistory history = new GrantHistory();
    history.record(new Grant("k", 1, "a", 0, 10, 50));
    history.record(new Grant("j", 2, "b", 5, 15, 60));
    assertThat(history.overlaps()).isEmpty();
    assertThat(history.tokenRegressions()).isEmpty();
  }
}
