package dev.fencepost.payoutjob;

import dev.fencepost.lock.LockServiceUnavailableException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.EnumMap;
import java.util.Map;
import java.util.StringJoiner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.batch.core.ExitStatus;
import org.springframework.batch.core.listener.StepExecutionListener;
import org.springframework.batch.core.step.StepExecution;
import org.springframework.batch.infrastructure.item.Chunk;
import org.springframework.batch.infrastructure.item.ItemWriter;

/**
 * The step's writer and exit status. Writing changes nothing (each payout's changes were committed
 * by payment-resource inside the grant). Each attempt's outcome is counted as the attempt ends
 * ({@link #record}), not when its chunk is written, so a chunk of several payouts that a later
 * payout fails (ADR 0207) still counts the attempts that happened. The exit status carries them:
 * {@code COMPLETED} with a description such as {@code POSTED=12 AMBIGUOUS=1 SKIPPED_LOCK_HELD=3
 * STALE_CANDIDATE=2}, or {@code FAILED_LOCK_SERVICE_UNAVAILABLE} when the lock service could not be
 * reached and the run stopped without claiming anything (UC-08, FR-27). One instance per step
 * execution.
 */
public class PayoutStepTally implements ItemWriter<PayoutResult>, StepExecutionListener {

  /** In the exit description: candidates dropped before their attempt, see {@link #stale}. */
  public static final String STALE_CANDIDATE = "STALE_CANDIDATE";

  /** Exit code of a run stopped because no grant could be had. */
  public static final String LOCK_SERVICE_UNAVAILABLE = "FAILED_LOCK_SERVICE_UNAVAILABLE";

  private static final Logger log = LoggerFactory.getLogger(PayoutStepTally.class);

  private final Map<PayoutOutcome, Long> counts = new EnumMap<>(PayoutOutcome.class);
  private long stale;
  private final String timingsFile;
  private final StringBuilder timings = new StringBuilder();

  public PayoutStepTally() {
    this("");
  }

  /**
   * @param timingsFile where to append each attempt's outcome and duration at the end of the step
   *     (a benchmark seam, ADR 0095); empty for nowhere
   */
  public PayoutStepTally(String timingsFile) {
    this.timingsFile = timingsFile == null ? "" : timingsFile;
  }

  /**
   * One attempt ended with {@code outcome} and took {@code nanos}, lock acquire to release. The
   * duration is kept only for a timings file (a line {@code outcome,micros,endedAtEpochMillis}, so
   * a benchmark can keep the attempts of its measured window), written every twenty-odd attempts so
   * that a worker stopped mid-run (a benchmark's deadline) leaves most of its timings behind.
   */
  public synchronized void record(PayoutOutcome outcome, long nanos) {
    counts.merge(outcome, 1L, Long::sum);
    if (!timingsFile.isEmpty()) {
      timings
          .append(outcome)
          .append(',')
          .append(nanos / 1_000)
          .append(',')
          .append(System.currentTimeMillis())
          .append('\n');
      if (timings.length() > 512) {
        writeTimings();
      }
    }
  }

  /**
   * A candidate was dropped before its attempt: it had left the state it was read in (another
   * worker took or finished it), so no lock was asked for. Shown as {@code STALE_CANDIDATE=n}.
   */
  public synchronized void stale() {
    stale++;
  }

  /** Nothing to write: every attempt was counted by {@link #record} as it ended. */
  @Override
  public void write(Chunk<? extends PayoutResult> chunk) {}

  @Override
  public synchronized ExitStatus afterStep(StepExecution stepExecution) {
    StringJoiner description = new StringJoiner(" ");
    counts.forEach((outcome, count) -> description.add(outcome + "=" + count));
    if (stale > 0) {
      description.add(STALE_CANDIDATE + "=" + stale);
    }
    boolean lockServiceDown =
        stepExecution.getFailureExceptions().stream().anyMatch(PayoutStepTally::isLockServiceDown);
    ExitStatus exit;
    if (lockServiceDown) {
      exit =
          new ExitStatus(
              LOCK_SERVICE_UNAVAILABLE,
              "lock service unreachable: nothing claimed without a grant (FR-27); " + description);
    } else if (!stepExecution.getFailureExceptions().isEmpty()) {
      exit = ExitStatus.FAILED.addExitDescription(description.toString());
    } else {
      exit = ExitStatus.COMPLETED.addExitDescription(description.toString());
    }
    writeTimings();
    log.atInfo()
        .addKeyValue("event", "payout.run.finished")
        .addKeyValue("exitCode", exit.getExitCode())
        .addKeyValue("outcomes", description.toString())
        .addKeyValue("readCount", stepExecution.getReadCount())
        .log("payoutJob step ended {}: {}", exit.getExitCode(), description);
    return exit;
  }

  private void writeTimings() {
    if (timingsFile.isEmpty() || timings.isEmpty()) {
      return;
    }
    try {
      Files.writeString(
          Path.of(timingsFile),
          timings,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND,
          StandardOpenOption.WRITE);
      timings.setLength(0);
    } catch (IOException e) {
      // Evidence for a benchmark only: the run's outcome must not depend on it.
      timings.setLength(0);
      log.atWarn()
          .addKeyValue("event", "payout.timings.write_failed")
          .addKeyValue("file", timingsFile)
          .log("could not write payout timings to {}: {}", timingsFile, e.toString());
    }
  }

  private static boolean isLockServiceDown(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof LockServiceUnavailableException) {
        return true;
      }
    }
    return false;
  }
}
