package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * UC-05: every way the rail can leave the outcome unknown (hang before or after settling, error
 * after settling, connection reset) leaves the payout RAIL_AMBIGUOUS with exactly one submission;
 * further runs never submit it again (FR-23, ADR 0042), whether or not money moved.
 */
@Tag("UC-05")
@Tag("FR-23")
class RailTimeoutTest extends OneWorkerTest {

  @AfterAll
  static void railBackToNormal() throws Exception {
    platform.resetRailFaults();
  }

  @Test
  void unknownOutcomesAreAmbiguousWithOneSubmissionEachAndAreNeverResubmitted() throws Exception {
    List<String> modes =
        List.of("TIMEOUT_BEFORE_SETTLE", "TIMEOUT_AFTER_SETTLE", "ERROR_AFTER_SETTLE", "RESET");
    List<Payout> payouts = new java.util.ArrayList<>();
    Map<String, String> faults = new java.util.HashMap<>();
    for (String mode : modes) {
      Payout payout = platform.accountWithPayouts("ambig", 10_000, 1, 900).get(0);
      payouts.add(payout);
      faults.put(payout.id().clientReference(), mode);
    }
    platform.railFaults(faults);

    Platform.run(worker);
    Platform.run(worker);

    for (int i = 0; i < payouts.size(); i++) {
      Payout payout = payouts.get(i);
      assertThat(platform.reload(payout).state())
          .as(modes.get(i))
          .isEqualTo(PayoutState.RAIL_AMBIGUOUS);
      assertThat(platform.submissions(payout.id())).as(modes.get(i)).isEqualTo(1);
      int expectedMovements = modes.get(i).endsWith("AFTER_SETTLE") ? 1 : 0;
      assertThat(platform.movements(payout.id())).as(modes.get(i)).isEqualTo(expectedMovements);
      assertThat(platform.payments.account(payout.accountId()).balanceMinor()).isEqualTo(10_000);
    }
  }
}
