package dev.fencepost.experiments.chaos;

import dev.fencepost.experiments.harness.LockBackend;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The chaos run's long tier (only with {@code -Dexperiments.long=true}, which selects {@code
 * *LongIT}): 2,000 payouts over 100 accounts, a 6 min fault window, once per lock backend (ADR
 * 0108, ADR 0171, {@link ChaosRun}).
 */
class ChaosRunLongIT {

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.fencepost.experiments.chaos.ChaosRun#backends")
  void underTwoThousandPayoutsOfRandomFaultsTheBacklogSettlesAndEverySafetyCounterIsZero(
      LockBackend backend) {
    ChaosRun.run(ChaosRun.LONG, backend, ChaosRunLongIT.class);
  }
}
