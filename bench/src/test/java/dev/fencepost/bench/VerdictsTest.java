package dev.fencepost.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A target decided on a percentile its samples cannot carry is neither met nor not met. */
class VerdictsTest {

  @Test
  void everyConditionHeldIsMet() {
    assertThat(Verdicts.verdict(true, true)).isEqualTo("**met**");
  }

  @Test
  void anyConditionFailedIsNotMetEvenBesideAnUnknownOne() {
    assertThat(Verdicts.verdict(true, null, false)).isEqualTo("**not met**");
  }

  @Test
  void anUnknownConditionWithNoneFailedIsNotEnoughSamples() {
    assertThat(Verdicts.verdict(true, null)).isEqualTo("**" + Stats.NOT_ENOUGH + "**");
  }
}
