package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payoutjob.PayoutFailpoint.Point;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.batch.core.BatchStatus;
import org.springframework.batch.core.job.JobExecution;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * UC-08: the lock server stops in the middle of a run (right after the fifth claim, from inside the
 * worker, so the moment is exact). The payout already under a grant finishes; no other payout is
 * claimed, because no grant can be had (FR-27: fail closed, after the starter's bounded jittered
 * retries, FR-28); the run ends with exit code FAILED_LOCK_SERVICE_UNAVAILABLE and the rest stay
 * PENDING. When the lock server is back, the next run drains the backlog, each payout moving money
 * once.
 */
@Tag("UC-08")
@Tag("FR-27")
@Tag("FR-28")
class LockServiceOutageTest {

  static Platform platform = Platform.shared();
  static ConfigurableApplicationContext worker;

  @AfterAll
  static void restoreLockServer() {
    if (worker != null) {
      worker.close();
    }
    if (!platform.lockServer().isAlive()) {
      platform.restartLockServer();
    }
  }

  @Test
  void noPayoutIsClaimedWithoutAGrantAndTheBacklogDrainsWhenTheLockServiceReturns()
      throws Exception {
    // Whatever earlier classes left actionable would blur the counts: drain it first.
    try (ConfigurableApplicationContext sweeper = platform.worker()) {
      Platform.run(sweeper);
    }
    List<Payout> payouts = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      payouts.addAll(platform.accountWithPayouts("outage" + i, 10_000, 1, 500));
    }
    AtomicInteger claims = new AtomicInteger();
    worker =
        platform.workerWithFailpoint(
            (point, payout) -> {
              if (point == Point.CLAIMED && claims.incrementAndGet() == 5) {
                platform.lockServer().close();
              }
            },
            "--fencepost.lock.client.retry.max-elapsed=2s");

    JobExecution run = Platform.run(worker);

    assertThat(run.getStatus()).isEqualTo(BatchStatus.FAILED);
    assertThat(run.getExitStatus().getExitCode())
        .isEqualTo(PayoutStepTally.LOCK_SERVICE_UNAVAILABLE);
    assertThat(claims).hasValue(5);
    List<PayoutState> states = payouts.stream().map(p -> platform.reload(p).state()).toList();
    assertThat(states).filteredOn(s -> s == PayoutState.POSTED).hasSize(5);
    assertThat(states).filteredOn(s -> s == PayoutState.PENDING).hasSize(25);

    platform.restartLockServer();
    // As the Deployment's loop would: run again until a run completes (the client re-creates its
    // session once the server answers, ADR 0060).
    await()
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> Platform.run(worker).getStatus() == BatchStatus.COMPLETED);

    for (Payout payout : payouts) {
      assertThat(platform.reload(payout).state()).isEqualTo(PayoutState.POSTED);
      assertThat(platform.movements(payout.id())).isEqualTo(1);
    }
  }
}
