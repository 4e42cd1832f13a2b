package dev.fencepost.payoutjob;

import dev.fencepost.batch.LaunchParameters;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.batch.core.BatchStatus;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.JobExecution;
import org.springframework.batch.core.job.parameters.JobParameters;
import org.springframework.batch.core.launch.JobOperator;
import org.springframework.context.SmartLifecycle;

/**
 * Deployment mode (ADR 0060): runs payoutJob again and again in this process, each run a new job
 * instance, pausing {@code fencepost.payout.loop.idle-pause} after a run that found nothing or
 * failed (for example with the lock service down, UC-08: nothing is claimed, the next run tries
 * again). Stops with the application.
 */
public final class PayoutJobLoop implements SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(PayoutJobLoop.class);

  private final JobOperator operator;
  private final Job job;
  private final long idlePauseMillis;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile Thread thread;

  public PayoutJobLoop(JobOperator operator, Job job, java.time.Duration idlePause) {
    this.operator = operator;
    this.job = job;
    this.idlePauseMillis = idlePause.toMillis();
  }

  @Override
  public void start() {
    thread = new Thread(this::loop, "payout-job-loop");
    thread.start();
  }

  private void loop() {
    while (stopped.getCount() > 0) {
      long read = 0;
      boolean failed = true;
      try {
        JobExecution execution = operator.start(job, LaunchParameters.unique(new JobParameters()));
        read = execution.getStepExecutions().stream().mapToLong(s -> s.getReadCount()).sum();
        failed = execution.getStatus() != BatchStatus.COMPLETED;
      } catch (Exception e) {
        log.atWarn()
            .addKeyValue("event", "payout.loop.launch_failed")
            .addKeyValue("reason", e.getClass().getSimpleName())
            .log("payoutJob launch failed: {}", e.getMessage());
      }
      if (read == 0 || failed) {
        try {
          stopped.await(idlePauseMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  @Override
  public void stop() {
    stopped.countDown();
    Thread running = thread;
    if (running != null) {
      try {
        running.join(30_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public boolean isRunning() {
    Thread running = thread;
    return running != null && running.isAlive();
  }
}
