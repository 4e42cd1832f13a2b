package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.batch.core.BatchStatus;
import org.springframework.batch.core.job.JobExecution;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * UC-02: four instances of payoutJob, each its own application with its own lock session (as four
 * pods), race over the same 200 payouts of 20 accounts. The race is the normal case: every payout
 * ends terminal or RAIL_AMBIGUOUS, each POSTED payout moved money exactly once, and nothing moved
 * twice (INV-02), with a few rail timeouts mixed in.
 */
@Tag("UC-02")
@Tag("INV-02")
@Tag("A-15")
class ConcurrentJobInstancesTest {

  static Platform platform;
  static final List<ConfigurableApplicationContext> workers = new ArrayList<>();

  @BeforeAll
  static void start() {
    platform = Platform.shared();
    for (int i = 0; i < 4; i++) {
      workers.add(platform.worker());
    }
  }

  @AfterAll
  static void stop() throws Exception {
    workers.forEach(ConfigurableApplicationContext::close);
    platform.resetRailFaults();
  }

  @Test
  void fourInstancesOverTwoHundredPayoutsMoveEachPostedPayoutExactlyOnce() throws Exception {
    List<Payout> payouts = new ArrayList<>();
    for (int account = 0; account < 20; account++) {
      payouts.addAll(platform.accountWithPayouts("race" + account, 1_000_000, 10, 1_000 + account));
    }
    Map<String, String> faults = new HashMap<>();
    faults.put(payouts.get(5).id().clientReference(), "TIMEOUT_AFTER_SETTLE");
    faults.put(payouts.get(77).id().clientReference(), "TIMEOUT_BEFORE_SETTLE");
    faults.put(payouts.get(150).id().clientReference(), "DECLINE");
    platform.railFaults(faults);

    ExecutorService pool = Executors.newFixedThreadPool(workers.size());
    CountDownLatch go = new CountDownLatch(1);
    List<Future<JobExecution>> runs = new ArrayList<>();
    for (ConfigurableApplicationContext worker : workers) {
      runs.add(
          pool.submit(
              () -> {
                go.await();
                return Platform.run(worker);
              }));
    }
    go.countDown();
    List<JobExecution> executions = new ArrayList<>();
    for (Future<JobExecution> run : runs) {
      executions.add(run.get(4, TimeUnit.MINUTES));
    }
    pool.shutdown();

    assertThat(executions)
        .allSatisfy(e -> assertThat(e.getStatus()).isEqualTo(BatchStatus.COMPLETED));
    // A second pass drains whatever the first left behind a contended lock.
    Platform.run(workers.get(0));

    int posted = 0;
    for (Payout payout : payouts) {
      Payout done = platform.reload(payout);
      int movements = platform.movements(payout.id());
      assertThat(platform.submissions(payout.id()))
          .as("proxy rows of %s", payout.id())
          .isLessThanOrEqualTo(1);
      assertThat(movements).as("rail movements of %s", payout.id()).isLessThanOrEqualTo(1);
      if (done.state() == PayoutState.POSTED) {
        posted++;
        assertThat(movements).as("a POSTED payout moved money once").isEqualTo(1);
      } else if (done.state() == PayoutState.PENDING) {
        // Only behind an ambiguous payout of the same account (one in flight per account, A-15).
        assertThat(
                payouts.stream()
                    .filter(p -> p.accountId().equals(done.accountId()))
                    .map(platform::reload)
                    .anyMatch(p -> p.state() == PayoutState.RAIL_AMBIGUOUS))
            .isTrue();
      } else {
        assertThat(done.state()).isIn(EnumSet.of(PayoutState.FAILED, PayoutState.RAIL_AMBIGUOUS));
      }
    }
    assertThat(platform.reload(payouts.get(5)).state()).isEqualTo(PayoutState.RAIL_AMBIGUOUS);
    assertThat(platform.reload(payouts.get(77)).state()).isEqualTo(PayoutState.RAIL_AMBIGUOUS);
    assertThat(platform.reload(payouts.get(150)).state()).isEqualTo(PayoutState.FAILED);
    assertThat(posted).isGreaterThanOrEqualTo(200 - 3 * 10);
    assertThat(platform.payments.accountsWithConcurrentInFlight(100)).isEmpty();
    assertThat(platform.payments.ledgerAudit().check(100).clean()).isTrue();
  }
}
