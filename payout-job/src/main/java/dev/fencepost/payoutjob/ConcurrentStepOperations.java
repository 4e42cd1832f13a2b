package dev.fencepost.payoutjob;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.batch.infrastructure.repeat.RepeatCallback;
import org.springframework.batch.infrastructure.repeat.RepeatContext;
import org.springframework.batch.infrastructure.repeat.RepeatOperations;
import org.springframework.batch.infrastructure.repeat.RepeatStatus;
import org.springframework.batch.infrastructure.repeat.policy.DefaultResultCompletionPolicy;
import org.springframework.batch.infrastructure.repeat.support.RepeatTemplate;

/**
 * The step's chunk loop run by {@code threads} threads at once, each repeating chunks until the
 * reader has nothing more for it (ADR 0063). Spring Batch's own {@code TaskExecutorRepeatTemplate}
 * caps concurrent chunks at a fixed throttle limit of 4 in Batch 6, too few for a process that
 * spends most of each payout waiting on the lock server, paydb and the rail. The step's semaphore
 * still serialises updates of the step execution; a failure in one thread stops the others after
 * their current payout and is rethrown, so the step fails as a single-threaded one would (UC-08).
 */
final class ConcurrentStepOperations implements RepeatOperations {

  private final int threads;

  ConcurrentStepOperations(int threads) {
    this.threads = threads;
  }

  @Override
  public RepeatStatus iterate(RepeatCallback callback) {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger number = new AtomicInteger();
    ThreadFactory named = runnable -> new Thread(runnable, "payout-" + number.incrementAndGet());
    ExecutorService pool = Executors.newFixedThreadPool(threads, named);
    try {
      List<Future<RepeatStatus>> loops = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        loops.add(pool.submit(() -> loop(callback, stop)));
      }
      Throwable failure = null;
      for (Future<RepeatStatus> loop : loops) {
        try {
          loop.get();
        } catch (ExecutionException e) {
          if (failure == null) {
            failure = e.getCause();
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          stop.set(true);
          failure = e;
        }
      }
      if (failure instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (failure instanceof Error error) {
        throw error;
      }
      if (failure != null) {
        throw new IllegalStateException(failure);
      }
      return RepeatStatus.FINISHED;
    } finally {
      pool.shutdownNow();
    }
  }

  private static RepeatStatus loop(RepeatCallback callback, AtomicBoolean stop) {
    RepeatTemplate template = new RepeatTemplate();
    template.setCompletionPolicy(
        new DefaultResultCompletionPolicy() {
          @Override
          public boolean isComplete(RepeatContext context) {
            return stop.get() || super.isComplete(context);
          }
        });
    try {
      return template.iterate(callback);
    } catch (RuntimeException | Error e) {
      stop.set(true);
      throw e;
    }
  }
}
