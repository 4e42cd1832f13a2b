package dev.fencepost.payoutjob;

import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutId;
import dev.fencepost.payment.PayoutState;
import java.time.Instant;

/** A payout as a worker holds it once claimed, for the tests of the proxy client. */
final class ClaimedPayouts {

  private ClaimedPayouts() {}

  /** 1,000 EUR minor units to {@code ben-1}, claimed by {@code w1} under token 7. */
  static Payout claimed(String payoutId, String accountId) {
    Instant now = Instant.parse("2026-01-01T00:00:00Z");
    PayoutId id = PayoutId.parse(payoutId);
    return new Payout(
        id,
        AccountId.of(accountId),
        1_000,
        "EUR",
        "ben-1",
        PayoutState.CLAIMED,
        id.clientReference(),
        "w1",
        7L,
        null,
        null,
        1,
        now,
        now,
        null,
        null,
        null,
        now);
  }
}
