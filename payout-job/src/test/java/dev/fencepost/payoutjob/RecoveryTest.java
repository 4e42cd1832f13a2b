package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payoutjob.PayoutFailpoint.Point;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * UC-04: a worker stops dead at CLAIMED, after the proxy recorded and answered the submission, and
 * at RAIL_ACKED (a test failpoint ends its flow there, as a crash would; its application is then
 * closed, which ends its lock session). A second worker's ordinary run recovers each payout from
 * its state and the proxy's record (FR-24) to POSTED, and the rail sees exactly one movement: no
 * resubmission.
 */
@Tag("UC-04")
@Tag("FR-24")
class RecoveryTest extends OneWorkerTest {

  @ParameterizedTest
  @EnumSource(
      value = Point.class,
      names = {"CLAIMED", "PROXY_ANSWERED", "SUBMITTED", "RAIL_ACKED"})
  void aSecondWorkerCompletesTheCrashedPayoutWithoutResubmitting(Point point) throws Exception {
    Payout payout =
        platform.accountWithPayouts("crash-" + point.ordinal(), 50_000, 1, 4_200).get(0);
    platform.crashAt(point, payout);
    Payout left = platform.reload(payout);
    int sentBefore = platform.movements(payout.id());
    switch (point) {
      case CLAIMED -> {
        assertThat(left.state()).isEqualTo(PayoutState.CLAIMED);
        assertThat(sentBefore).isZero();
      }
      case PROXY_ANSWERED -> {
        assertThat(left.state()).isEqualTo(PayoutState.CLAIMED);
        assertThat(sentBefore).isEqualTo(1);
      }
      case SUBMITTED -> {
        assertThat(left.state()).isEqualTo(PayoutState.RAIL_SUBMITTED);
        assertThat(sentBefore).isEqualTo(1);
      }
      case RAIL_ACKED -> {
        assertThat(left.state()).isEqualTo(PayoutState.RAIL_ACKED);
        assertThat(sentBefore).isEqualTo(1);
      }
      default ->
          throw new IllegalArgumentException("not a crash point of a fresh payout: " + point);
    }

    Platform.run(worker);

    Payout done = platform.reload(payout);
    assertThat(done.state()).isEqualTo(PayoutState.POSTED);
    assertThat(done.tokenStamp())
        .as("finished under the survivor's newer grant")
        .isGreaterThan(left.tokenStamp());
    assertThat(platform.movements(payout.id())).isEqualTo(1);
    assertThat(platform.submissions(payout.id())).isEqualTo(1);
    assertThat(platform.payments.account(payout.accountId()).balanceMinor())
        .isEqualTo(50_000 - 4_200);
  }

  @Test
  void aRecovererThatDiesAfterReclaimingLeavesNothingSentAndTheNextOneSubmitsOnce()
      throws Exception {
    Payout payout = platform.accountWithPayouts("crash-reclaim", 50_000, 1, 4_200).get(0);
    platform.crashAt(Point.CLAIMED, payout);
    Payout claimed = platform.reload(payout);
    platform.crashAt(Point.RECLAIMED, payout);
    Payout reclaimed = platform.reload(payout);

    assertThat(reclaimed.state()).isEqualTo(PayoutState.CLAIMED);
    assertThat(reclaimed.tokenStamp()).isGreaterThan(claimed.tokenStamp());
    assertThat(platform.movements(payout.id())).isZero();

    Platform.run(worker);

    assertThat(platform.reload(payout).state()).isEqualTo(PayoutState.POSTED);
    assertThat(platform.movements(payout.id())).isEqualTo(1);
    assertThat(platform.submissions(payout.id())).isEqualTo(1);
  }
}
