package dev.fencepost.payment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.payment.impl.PaymentSignals;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The counters the alert rules read with {@code increase()} exist at zero before the first event: a
 * counter born at 1 shows Prometheus no increase, and the first fenced-out write or ledger failure
 * would never alert (ADR 0175).
 */
@Tag("NFR-10")
class SignalsAtZeroTest {

  @Test
  void fenceAndLedgerCountersAreRegisteredAtZeroBeforeAnyWrite() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();

    new PaymentSignals(meters);

    assertThat(meters.get("fencepost.fence.rejections").tag("guard", "paydb").counter().count())
        .isZero();
    assertThat(meters.get("fencepost.ledger.assertion.failures").counters())
        .extracting(c -> c.getId().getTag("check"))
        .containsExactlyInAnyOrder("group_sum", "account_balance");
    assertThat(meters.get("fencepost.ledger.assertion.failures").counters())
        .allSatisfy(c -> assertThat(c.count()).isZero());
  }
}
