package dev.fencepost.experiments.chaos;

import org.junit.jupiter.api.Test;

/** The chaos run's CI tier: 300 payouts, a 60 s fault window (ADR 0108, {@link ChaosRun}). */
class ChaosRunIT {

  @Test
  void underRandomFaultsTheBacklogSettlesAndEverySafetyCounterIsZero() {
    ChaosRun.run(ChaosRun.CI);
  }
}
