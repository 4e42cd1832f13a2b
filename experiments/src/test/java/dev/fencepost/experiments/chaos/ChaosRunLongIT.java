package dev.fencepost.experiments.chaos;

import org.junit.jupiter.api.Test;

/**
 * The chaos run's long tier (only with {@code -Dexperiments.long=true}, which selects {@code
 * *LongIT}): 2,000 payouts over 100 accounts, a 6 min fault window (ADR 0108, {@link ChaosRun}).
 */
class ChaosRunLongIT {

  @Test
  void underTwoThousandPayoutsOfRandomFaultsTheBacklogSettlesAndEverySafetyCounterIsZero() {
    ChaosRun.run(ChaosRun.LONG, ChaosRunLongIT.class);
  }
}
