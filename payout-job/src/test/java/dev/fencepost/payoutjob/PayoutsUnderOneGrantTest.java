package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.fencepost.payment.PaymentResource;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payment.autoconfigure.PaydbAutoConfiguration;
import dev.fencepost.payoutjob.PayoutExecutor.GrantRunEnd;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.batch.core.BatchStatus;
import org.springframework.batch.core.ExitStatus;
import org.springframework.batch.core.job.JobExecution;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One grant of an account's lock carries the account's ready payouts one after another, oldest
 * first (ADR 0236): each claimed under the same token and re-read by its own claim, at most one in
 * flight at a time, and the lock released after the last. Only a finished payout lets the
 * grant go on.
 */
@Tag("UC-01")
@Tag("A-15")
class PayoutsUnderOneGrantTest extends OneWorkerTest {

  @AfterEach
  void railBackToNormal() throws Exception {
    platform.resetRailFaults();
  }

  @Test
  void anAccountsReadyPayoutsArePostedOldestFirstUnderOneGrant() {
    List<Payout> payouts = platform.accountWithPayouts("grant-run", 10_000, 3, 1_000);
    List<PayoutResult> ended = new ArrayList<>();
    GrantRuns before = GrantRuns.now(GrantRunEnd.NOTHING_NEXT);

    PayoutResult first =
        executor().execute(payouts.get(0), 10, () -> true, (result, nanos) -> ended.add(result));

    assertThat(first.payoutId()).isEqualTo(payouts.get(0).id());
    assertThat(ended)
        .extracting(PayoutResult::payoutId, PayoutResult::outcome)
        .containsExactly(
            tuple(payouts.get(0).id(), PayoutOutcome.POSTED),
            tuple(payouts.get(1).id(), PayoutOutcome.POSTED),
            tuple(payouts.get(2).id(), PayoutOutcome.POSTED));
    List<Payout> done = payouts.stream().map(platform::reload).toList();
    assertThat(done).extracting(Payout::tokenStamp).as("one grant").containsOnly(tokenOf(done));
    assertThat(done)
        .as("claimed in the order they were created")
        .isSortedAccordingTo(Comparator.comparing(Payout::claimedAt));
    for (Payout payout : done) {
      assertThat(platform.movements(payout.id())).isEqualTo(1);
      assertThat(platform.submissions(payout.id())).isEqualTo(1);
    }
    assertThat(platform.payments.account(payouts.get(0).accountId()).balanceMinor())
        .isEqualTo(10_000 - 3 * 1_000);
    assertThat(platform.payments.ledgerAudit().driftOf(payouts.get(0).accountId())).isEmpty();
    assertThat(GrantRuns.now(GrantRunEnd.NOTHING_NEXT))
        .as("one run, three payouts, ended with nothing next")
        .isEqualTo(before.plus(1, 3));
  }

  @Test
  void aGrantCarriesNoMorePayoutsThanItsBoundAndTheNextGrantHasAHigherToken() {
    List<Payout> payouts = platform.accountWithPayouts("grant-bound", 10_000, 4, 1_000);
    GrantRuns before = GrantRuns.now(GrantRunEnd.BOUND);

    List<PayoutResult> firstGrant = new ArrayList<>();
    executor().execute(payouts.get(0), 2, () -> true, (result, nanos) -> firstGrant.add(result));

    assertThat(firstGrant)
        .extracting(PayoutResult::payoutId)
        .containsExactly(payouts.get(0).id(), payouts.get(1).id());
    assertThat(platform.reload(payouts.get(2)).state()).isEqualTo(PayoutState.PENDING);
    assertThat(platform.reload(payouts.get(3)).state()).isEqualTo(PayoutState.PENDING);

    List<PayoutResult> secondGrant = new ArrayList<>();
    executor().execute(payouts.get(2), 2, () -> true, (result, nanos) -> secondGrant.add(result));

    assertThat(secondGrant)
        .extracting(PayoutResult::outcome)
        .containsExactly(PayoutOutcome.POSTED, PayoutOutcome.POSTED);
    List<Payout> done = payouts.stream().map(platform::reload).toList();
    assertThat(done.get(0).tokenStamp()).isEqualTo(done.get(1).tokenStamp());
    assertThat(done.get(2).tokenStamp()).isEqualTo(done.get(3).tokenStamp());
    assertThat(done.get(2).tokenStamp()).isGreaterThan(done.get(1).tokenStamp());
    assertThat(GrantRuns.now(GrantRunEnd.BOUND))
        .as("two runs of two, each ended at its bound")
        .isEqualTo(before.plus(2, 4));
  }

  @Test
  void theGrantGoesOnOnlyWhileItsCallerSaysItMay() {
    List<Payout> payouts = platform.accountWithPayouts("grant-may", 10_000, 3, 1_000);
    List<PayoutResult> ended = new ArrayList<>();
    AtomicInteger asked = new AtomicInteger();
    GrantRuns before = GrantRuns.now(GrantRunEnd.GAVE_WAY);

    executor()
        .execute(
            payouts.get(0),
            10,
            () -> asked.incrementAndGet() < 2,
            (result, nanos) -> ended.add(result));

    assertThat(asked).as("asked after each finished payout").hasValue(2);
    assertThat(ended)
        .extracting(PayoutResult::payoutId)
        .containsExactly(payouts.get(0).id(), payouts.get(1).id());
    assertThat(platform.reload(payouts.get(2)).state()).isEqualTo(PayoutState.PENDING);
    assertThat(GrantRuns.now(GrantRunEnd.GAVE_WAY)).isEqualTo(before.plus(1, 2));
    assertThat(executor().execute(payouts.get(2)).outcome())
        .as("the lock was released")
        .isEqualTo(PayoutOutcome.POSTED);
    assertThat(platform.reload(payouts.get(2)).tokenStamp())
        .isGreaterThan(platform.reload(payouts.get(1)).tokenStamp());
  }

  @Test
  @Tag("FR-23")
  void anAmbiguousPayoutEndsItsGrantsRunAndTheAccountWaitsForTheReconciler() {
    List<Payout> payouts = platform.accountWithPayouts("grant-ambiguous", 10_000, 2, 1_000);
    platform.railFaults(Map.of(payouts.get(0).clientReference(), "TIMEOUT_BEFORE_SETTLE"));
    List<PayoutResult> ended = new ArrayList<>();
    GrantRuns before = GrantRuns.now(GrantRunEnd.NOT_FINISHED);

    executor().execute(payouts.get(0), 10, () -> true, (result, nanos) -> ended.add(result));

    assertThat(ended).extracting(PayoutResult::outcome).containsExactly(PayoutOutcome.AMBIGUOUS);
    assertThat(platform.reload(payouts.get(1)).state()).isEqualTo(PayoutState.PENDING);
    assertThat(platform.submissions(payouts.get(1).id())).isZero();
    assertThat(GrantRuns.now(GrantRunEnd.NOT_FINISHED)).isEqualTo(before.plus(1, 1));
  }

  @Test
  void aDeclinedPayoutIsFinishedSoItsGrantGoesOnToTheNext() {
    List<Payout> payouts = platform.accountWithPayouts("grant-decline", 10_000, 2, 1_000);
    platform.railFaults(Map.of(payouts.get(0).clientReference(), "DECLINE"));
    List<PayoutResult> ended = new ArrayList<>();

    executor().execute(payouts.get(0), 10, () -> true, (result, nanos) -> ended.add(result));

    assertThat(ended)
        .extracting(PayoutResult::outcome)
        .containsExactly(PayoutOutcome.FAILED_DECLINED, PayoutOutcome.POSTED);
    assertThat(platform.reload(payouts.get(1)).tokenStamp())
        .isEqualTo(platform.reload(payouts.get(0)).tokenStamp());
  }

  @Test
  void aPaydbThatCannotSayWhichPayoutIsNextEndsTheRunAndReleasesTheLock() {
    List<Payout> payouts = platform.accountWithPayouts("grant-no-next", 10_000, 2, 1_000);
    DataSource paydb = worker.getBean(PaydbAutoConfiguration.DATA_SOURCE_BEAN, DataSource.class);
    PayoutExecutor blind =
        executorOver(
            new PaymentResource(
                PaydbStatements.refusing(paydb, PaydbStatements.NEXT_PENDING),
                new SimpleMeterRegistry()),
            "w-no-next");
    List<PayoutResult> ended = new ArrayList<>();

    blind.execute(payouts.get(0), 10, () -> true, (result, nanos) -> ended.add(result));

    assertThat(ended).extracting(PayoutResult::outcome).containsExactly(PayoutOutcome.POSTED);
    assertThat(platform.reload(payouts.get(1)).state()).isEqualTo(PayoutState.PENDING);
    assertThat(executor().execute(payouts.get(1)).outcome())
        .as("the lock was released: this worker takes it again at once")
        .isEqualTo(PayoutOutcome.POSTED);
  }

  @Test
  void onlyAFinishedPayoutLetsItsGrantGoOn() {
    assertThat(PayoutExecutor.GOES_ON)
        .containsExactlyInAnyOrderElementsOf(
            EnumSet.of(
                PayoutOutcome.POSTED,
                PayoutOutcome.FAILED_INSUFFICIENT_FUNDS,
                PayoutOutcome.FAILED_DECLINED,
                PayoutOutcome.ALREADY_TERMINAL));
    assertThatThrownBy(() -> executor().execute(null, 0, () -> true, (r, nanos) -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxPayouts");
  }

  @Test
  void theJobRunsAnAccountsPayoutsUnderOneGrantAndEachIsCounted() throws Exception {
    List<Payout> payouts = platform.accountWithPayouts("grant-job", 10_000, 3, 1_000);

    JobExecution run = Platform.run(worker);

    assertThat(run.getStatus()).isEqualTo(BatchStatus.COMPLETED);
    List<Payout> done = payouts.stream().map(platform::reload).toList();
    assertThat(done).extracting(Payout::state).containsOnly(PayoutState.POSTED);
    assertThat(done).extracting(Payout::tokenStamp).containsOnly(tokenOf(done));
    assertThat(postedCount(run.getStepExecutions().iterator().next().getExitStatus()))
        .as("every payout of the grant counted, not only the candidate")
        .isGreaterThanOrEqualTo(3);
  }

  @Test
  void withOnePayoutPerGrantEachPayoutHasAGrantOfItsOwn() throws Exception {
    List<Payout> payouts = platform.accountWithPayouts("grant-one", 10_000, 3, 1_000);
    ConfigurableApplicationContext single =
        platform.worker("--fencepost.payout.payouts-per-grant=1");
    try {
      assertThat(Platform.run(single).getStatus()).isEqualTo(BatchStatus.COMPLETED);
    } finally {
      single.close();
    }

    List<Payout> done = payouts.stream().map(platform::reload).toList();
    assertThat(done).extracting(Payout::state).containsOnly(PayoutState.POSTED);
    assertThat(done).extracting(Payout::tokenStamp).doesNotHaveDuplicates();
  }

  @Test
  void aBoundOutsideOneToAThousandIsRefused() {
    PayoutJobProperties properties = new PayoutJobProperties();
    assertThat(properties.getPayoutsPerGrant()).isEqualTo(10);
    for (int bound : new int[] {0, -1, 1001}) {
      assertThatThrownBy(() -> properties.setPayoutsPerGrant(bound))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("fencepost.payout.payouts-per-grant must be 1..1000");
    }
    assertThat(properties.getPayoutsPerGrant()).isEqualTo(10);
  }

  private static PayoutExecutor executor() {
    return worker.getBean(PayoutExecutor.class);
  }

  private static Long tokenOf(List<Payout> payouts) {
    return payouts.get(0).tokenStamp();
  }

  private static long postedCount(ExitStatus status) {
    for (String entry : status.getExitDescription().split(" ")) {
      if (entry.startsWith("POSTED=")) {
        return Long.parseLong(entry.substring("POSTED=".length()).replaceAll("\\D", ""));
      }
    }
    return 0;
  }

  /**
   * The worker's {@code fencepost.payout.job.grant.payouts} for one ending: grant runs so far, and
   * the payouts they carried.
   */
  private record GrantRuns(long runs, long payouts) {

    static GrantRuns now(GrantRunEnd end) {
      DistributionSummary summary =
          worker
              .getBean(MeterRegistry.class)
              .get("fencepost.payout.job.grant.payouts")
              .tag("reason", end.name())
              .summary();
      return new GrantRuns(summary.count(), (long) summary.totalAmount());
    }

    GrantRuns plus(long moreRuns, long morePayouts) {
      return new GrantRuns(runs + moreRuns, payouts + morePayouts);
    }
  }
}
