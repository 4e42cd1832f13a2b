package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.client.HeldLock;
import dev.fencepost.lock.client.LockTemplate;
import dev.fencepost.lock.client.LockedWork;
import dev.fencepost.payment.PaymentResource;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payoutjob.PayoutExecutor.GrantRunEnd;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A grant goes on to its account's next payout only while its lease has room for one (ADR 0239):
 * more time left than twice the longest payout its run has taken. Otherwise it releases the account
 * before looking for the next payout, which a later grant of its own then carries, rather than
 * starting a payout that its lease is likely to outlast.
 *
 * <p>The worker's real lock client, lock server, proxy and rail stub do the work. The test only
 * reports the time left on the lease, which the lock client measures from heartbeats a test cannot
 * delay on demand: what a machine too loaded to renew in time would show.
 */
@Tag("FR-13")
@Tag("A-15")
class GrantRunLeaseRoomTest extends OneWorkerTest {

  private static final Duration NO_ROOM = Duration.ofMillis(1);
  private static final Duration AMPLE = Duration.ofHours(1);

  private final AtomicInteger nextPendingReads = new AtomicInteger();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final List<PayoutResult> ended = new ArrayList<>();
  private PaymentResource payments;

  @BeforeEach
  void countNextPayoutReads() {
    payments =
        new PaymentResource(
            PaydbStatements.counting(
                platform.services.paydb().dataSource(),
                PaydbStatements.NEXT_PENDING,
                nextPendingReads),
            new SimpleMeterRegistry());
  }

  @Test
  void aGrantWhoseLeaseHasNoRoomForAnotherPayoutReleasesItsAccountAfterItsFirst() {
    List<Payout> payouts = platform.accountWithPayouts("lease-short", 10_000, 3, 1_000);

    executorReporting(NO_ROOM)
        .execute(payouts.get(0), 10, () -> true, (result, nanos) -> ended.add(result));

    assertThat(ended)
        .extracting(PayoutResult::payoutId, PayoutResult::outcome)
        .containsExactly(tuple(payouts.get(0).id(), PayoutOutcome.POSTED));
    assertThat(platform.reload(payouts.get(1)).state()).isEqualTo(PayoutState.PENDING);
    assertThat(platform.reload(payouts.get(2)).state()).isEqualTo(PayoutState.PENDING);
    assertThat(nextPendingReads).as("no next payout looked for").hasValue(0);
    assertThat(runs(GrantRunEnd.LEASE_SHORT)).as("one run of one payout").containsExactly(1L, 1L);

    PayoutResult next = executorOver(payments, "w-lease-next").execute(payouts.get(1));

    assertThat(next.outcome()).as("the account was released").isEqualTo(PayoutOutcome.POSTED);
    assertThat(platform.reload(payouts.get(1)).tokenStamp())
        .as("under a grant of its own")
        .isGreaterThan(platform.reload(payouts.get(0)).tokenStamp());
  }

  @Test
  void theLeaseIsAskedAfterEachPayoutSoARunEndsWhenItsLeaseRunsShort() {
    List<Payout> payouts = platform.accountWithPayouts("lease-shortens", 10_000, 3, 1_000);

    executorReporting(AMPLE, NO_ROOM)
        .execute(payouts.get(0), 10, () -> true, (result, nanos) -> ended.add(result));

    assertThat(ended)
        .extracting(PayoutResult::payoutId, PayoutResult::outcome)
        .containsExactly(
            tuple(payouts.get(0).id(), PayoutOutcome.POSTED),
            tuple(payouts.get(1).id(), PayoutOutcome.POSTED));
    assertThat(platform.reload(payouts.get(1)).tokenStamp())
        .as("one grant")
        .isEqualTo(platform.reload(payouts.get(0)).tokenStamp());
    assertThat(platform.reload(payouts.get(2)).state()).isEqualTo(PayoutState.PENDING);
    assertThat(nextPendingReads).as("after the first payout only").hasValue(1);
    assertThat(runs(GrantRunEnd.LEASE_SHORT)).containsExactly(1L, 2L);
  }

  @Test
  void aLeaseWithRoomLeavesTheRunToItsOtherBounds() {
    List<Payout> payouts = platform.accountWithPayouts("lease-ample", 10_000, 3, 1_000);

    executorReporting(AMPLE)
        .execute(payouts.get(0), 10, () -> true, (result, nanos) -> ended.add(result));

    assertThat(ended).extracting(PayoutResult::outcome).containsOnly(PayoutOutcome.POSTED);
    assertThat(ended).hasSize(3);
    assertThat(runs(GrantRunEnd.LEASE_SHORT)).containsExactly(0L, 0L);
    assertThat(runs(GrantRunEnd.NOTHING_NEXT)).containsExactly(1L, 3L);
  }

  @Test
  void roomForAnotherPayoutIsMoreThanTwiceTheLongestPayoutOfTheRun() {
    long longest = Duration.ofMillis(500).toNanos();

    assertThat(PayoutExecutor.hasRoomForAnother(Duration.ofMillis(1_000).plusNanos(1), longest))
        .isTrue();
    assertThat(PayoutExecutor.hasRoomForAnother(Duration.ofMillis(1_000), longest)).isFalse();
    assertThat(PayoutExecutor.hasRoomForAnother(Duration.ZERO, 0))
        .as("a lease with nothing left")
        .isFalse();
    assertThat(PayoutExecutor.hasRoomForAnother(Duration.ofMillis(-5), 0))
        .as("a deadline already passed")
        .isFalse();
  }

  /** An executor whose lease reports {@code remaining} in turn, the last one from then on. */
  private PayoutExecutor executorReporting(Duration... remaining) {
    LockTemplate real = worker.getBean(LockTemplate.class);
    Deque<Duration> reports = new ArrayDeque<>(List.of(remaining));
    LockTemplate reporting =
        new LockTemplate() {
          @Override
          public <T> T execute(LockKey key, Duration wait, LockedWork<T> work) {
            return real.execute(key, wait, lock -> work.doWithLock(reporting(lock, reports)));
          }

          @Override
          public <T> Optional<T> tryExecute(LockKey key, Duration wait, LockedWork<T> work) {
            return real.tryExecute(key, wait, lock -> work.doWithLock(reporting(lock, reports)));
          }

          @Override
          public Duration defaultWait() {
            return real.defaultWait();
          }
        };
    return executorOver(reporting, payments, "w-lease-room", meters);
  }

  /**
   * {@code lock} as it is, except for the time it reports left on its lease: every other call goes
   * to the real lock, as {@link PaydbStatements} passes statements to the real paydb.
   */
  private static HeldLock reporting(HeldLock lock, Deque<Duration> reports) {
    return (HeldLock)
        Proxy.newProxyInstance(
            HeldLock.class.getClassLoader(),
            new Class<?>[] {HeldLock.class},
            (proxy, method, args) -> {
              if (method.getName().equals("remaining")) {
                return reports.size() > 1 ? reports.poll() : reports.peek();
              }
              try {
                return method.invoke(lock, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  /**
   * The runs ended for {@code end} and the payouts they carried, as this test's executor counts.
   */
  private List<Long> runs(GrantRunEnd end) {
    DistributionSummary summary =
        meters.get("fencepost.payout.job.grant.payouts").tag("reason", end.name()).summary();
    return List.of(summary.count(), (long) summary.totalAmount());
  }
}
