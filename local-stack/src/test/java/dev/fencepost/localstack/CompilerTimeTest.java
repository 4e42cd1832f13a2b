package dev.fencepost.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CompilerTimeTest {

  @Test
  void aCompilerThreadThatStopsOrAWorkerThatExitsKeepsWhatItWasLastSeenToUse() {
    CompilerTime compilers = new CompilerTime();

    assertThat(compilers.record(41, Map.of(100L, 300L, 101L, 50L))).isEqualTo(350);
    // HotSpot stopped thread 100 and started 102: 100's time is gone from /proc, not from the run.
    assertThat(compilers.record(41, Map.of(101L, 70L, 102L, 5L))).isEqualTo(375);
    // The worker exited: nothing left to read.
    assertThat(compilers.record(41, Map.of())).isEqualTo(375);
    assertThat(compilers.soFar(41)).isEqualTo(375);
  }

  @Test
  void eachJvmIsCountedApartEvenWhenThreadIdsCoincide() {
    CompilerTime compilers = new CompilerTime();

    compilers.record(41, Map.of(7L, 300L));
    compilers.record(42, Map.of(7L, 20L));

    assertThat(compilers.soFar(41)).isEqualTo(300);
    assertThat(compilers.soFar(42)).isEqualTo(20);
    assertThat(compilers.soFar(43)).isZero();
  }
}
