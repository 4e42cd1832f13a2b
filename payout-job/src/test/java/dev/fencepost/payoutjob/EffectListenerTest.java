package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.payment.Payout;
import dev.fencepost.payoutjob.PayoutEffectListener.Effect;
import dev.fencepost.payoutjob.PayoutEffectListener.Kind;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The effect listener sees every side effect a worker attempts, in order, with the grant's token
 * and the guard's answer: the worker-side evidence that the history checker reads.
 */
class EffectListenerTest {

  @Test
  void everySideEffectOfOnePayoutIsReportedInOrderWithTheGrantsToken() {
    Platform platform = Platform.shared();
    Payout payout = platform.accountWithPayouts("effects", 10_000, 1, 2_000).get(0);
    List<Effect> seen = new CopyOnWriteArrayList<>();
    try (ConfigurableApplicationContext worker = workerReportingTo(platform, seen)) {
      PayoutResult result = worker.getBean(PayoutExecutor.class).execute(payout);

      assertThat(result.outcome()).isEqualTo(PayoutOutcome.POSTED);
    }
    assertThat(seen).extracting(Effect::what).containsExactly(Kind.CLAIM, Kind.SUBMIT, Kind.SETTLE);
    assertThat(seen).extracting(Effect::outcome).containsOnly("OK");
    assertThat(seen).extracting(Effect::payoutId).containsOnly(payout.id());
    assertThat(seen).extracting(Effect::accountId).containsOnly(payout.accountId());
    assertThat(seen.stream().map(Effect::token).distinct()).singleElement();
    assertThat(seen).extracting(Effect::nanos).isSorted();
  }

  @Test
  void aRefusedWriteIsReportedWithTheRefusalBeforeItPropagates() {
    Platform platform = Platform.shared();
    Payout payout = platform.accountWithPayouts("effects-poor", 1_000, 1, 2_000).get(0);
    List<Effect> seen = new CopyOnWriteArrayList<>();
    try (ConfigurableApplicationContext worker = workerReportingTo(platform, seen)) {
      PayoutResult first = worker.getBean(PayoutExecutor.class).execute(payout);
      PayoutResult again = worker.getBean(PayoutExecutor.class).execute(payout);

      assertThat(first.outcome()).isEqualTo(PayoutOutcome.FAILED_INSUFFICIENT_FUNDS);
      assertThat(again.outcome()).isEqualTo(PayoutOutcome.ALREADY_TERMINAL);
    }
    // Insufficient funds is the claim's own outcome (accepted, FAILED): no submit follows. The
    // re-run's claim finds the payout terminal and changes nothing, so it is not reported as an
    // effect (ADR 0218).
    assertThat(seen).extracting(Effect::what).containsExactly(Kind.CLAIM);
    assertThat(seen).extracting(Effect::outcome).containsExactly("OK");
  }

  /** A worker whose every side effect is appended to {@code seen}. */
  private static ConfigurableApplicationContext workerReportingTo(
      Platform platform, List<Effect> seen) {
    return platform.worker(
        context ->
            context.registerBean(
                "payoutEffectListener", PayoutEffectListener.class, () -> seen::add));
  }
}
