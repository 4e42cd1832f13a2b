package dev.fencepost.experiments.chaos;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The chaos run's CI tier: 200 payouts, a 40 s fault window (ADR 0108, {@link ChaosRun}). */
@Tag("NFR-06")
@Tag("NFR-15")
class ChaosRunIT {

  @Test
  void underRandomFaultsTheBacklogSettlesAndEverySafetyCounterIsZero() {
    ChaosRun.run(ChaosRun.CI, ChaosRunIT.class);
  }
}
