package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutId;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payoutjob.PayoutEffectListener.Effect;
import dev.fencepost.payoutjob.PayoutEffectListener.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.batch.core.BatchStatus;
import org.springframework.batch.core.job.JobExecution;
import org.springframework.batch.core.step.StepExecution;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * ADR 0063: a process runs {@code fencepost.payout.concurrency} payouts at once. Two such processes
 * (6 threads each) race over 120 payouts of 12 accounts: each payout is claimed once, each POSTED
 * payout moved money exactly once, every payout ends terminal, no account ever has two payouts in
 * flight, more than one thread of a process did the work, and each run's tally adds up to what its
 * step read.
 */
@Tag("A-15")
class ConcurrentPayoutThreadsTest {

  private static final int THREADS = 6;

  @Test
  void twoProcessesOfSixThreadsEachMoveEveryPostedPayoutExactlyOnce() throws Exception {
    Platform platform = Platform.shared();
    List<Payout> payouts = new ArrayList<>();
    for (int account = 0; account < 12; account++) {
      payouts.addAll(
          platform.accountWithPayouts("threads" + account, 1_000_000, 10, 500 + account));
    }
    Set<PayoutId> mine = ConcurrentHashMap.newKeySet();
    payouts.forEach(p -> mine.add(p.id()));
    Map<PayoutId, List<String>> claims = new ConcurrentHashMap<>();
    List<String> claimingThreads = new CopyOnWriteArrayList<>();
    PayoutEffectListener listener =
        (Effect effect) -> {
          if (effect.what() == Kind.CLAIM && mine.contains(effect.payoutId())) {
            String thread = Thread.currentThread().getName();
            claims
                .computeIfAbsent(effect.payoutId(), id -> new CopyOnWriteArrayList<>())
                .add(thread);
            claimingThreads.add(thread);
          }
        };

    List<ConfigurableApplicationContext> workers = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      workers.add(
          platform.worker(
              context ->
                  context.registerBean(
                      "payoutEffectListener", PayoutEffectListener.class, () -> listener),
              "--fencepost.payout.concurrency=" + THREADS));
    }
    List<JobExecution> executions = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(workers.size());
    try {
      List<Future<JobExecution>> runs = new ArrayList<>();
      for (ConfigurableApplicationContext worker : workers) {
        runs.add(pool.submit(() -> Platform.run(worker)));
      }
      for (Future<JobExecution> run : runs) {
        executions.add(run.get(4, TimeUnit.MINUTES));
      }
      // A second pass drains whatever the first left behind a lock the other process held.
      executions.add(Platform.run(workers.get(0)));
    } finally {
      pool.shutdown();
      workers.forEach(ConfigurableApplicationContext::close);
    }

    assertThat(executions)
        .allSatisfy(e -> assertThat(e.getStatus()).isEqualTo(BatchStatus.COMPLETED));
    long postedInTallies = 0;
    for (JobExecution execution : executions) {
      StepExecution step = execution.getStepExecutions().iterator().next();
      long tallied = 0;
      for (String entry : step.getExitStatus().getExitDescription().split(" ")) {
        if (entry.contains("=")) {
          long count = Long.parseLong(entry.substring(entry.indexOf('=') + 1));
          tallied += count;
          if (entry.startsWith("POSTED=")) {
            postedInTallies += count;
          }
        }
      }
      // The tally counts every payout, those a candidate's grant went on to as well (ADR 0236).
      assertThat(tallied)
          .as("tally of %s", step.getExitStatus())
          .isGreaterThanOrEqualTo(step.getReadCount());
      assertThat(step.getWriteCount() + step.getFilterCount()).isEqualTo(step.getReadCount());
    }

    int posted = 0;
    for (Payout payout : payouts) {
      Payout done = platform.reload(payout);
      assertThat(done.state()).as("state of %s", payout.id()).isEqualTo(PayoutState.POSTED);
      assertThat(platform.movements(payout.id())).as("movements of %s", payout.id()).isEqualTo(1);
      assertThat(platform.submissions(payout.id())).isEqualTo(1);
      assertThat(claims.get(payout.id())).as("claims of %s", payout.id()).hasSize(1);
      posted++;
    }
    assertThat(postedInTallies).isGreaterThanOrEqualTo(posted);
    assertThat(claimingThreads.stream().distinct().count())
        .as("payout threads that claimed")
        .isGreaterThan(2);
    assertThat(platform.payments.accountsWithConcurrentInFlight(100)).isEmpty();
    assertThat(platform.payments.ledgerAudit().check(100).clean()).isTrue();
  }
}
