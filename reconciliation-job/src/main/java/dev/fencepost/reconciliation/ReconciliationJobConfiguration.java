package dev.fencepost.reconciliation;

import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import org.springframework.batch.core.ExitStatus;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.builder.JobBuilder;
import org.springframework.batch.core.job.parameters.InvalidJobParametersException;
import org.springframework.batch.core.job.parameters.JobParameters;
import org.springframework.batch.core.repository.JobRepository;
import org.springframework.batch.core.step.Step;
import org.springframework.batch.core.step.builder.StepBuilder;
import org.springframework.batch.infrastructure.repeat.RepeatStatus;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * {@code reconciliationJob}: one step that calls {@link Reconciler#run} once (ADR 0075). Job
 * parameters {@code windowFrom} and {@code windowTo} (ISO-8601 instants) choose the window; without
 * them it is the previous full hour, which is what the hourly CronJob wants; a window longer
 * than {@code fencepost.reconciliation.max-window} is refused at launch (ADR 0168). The execution's
 * exit description carries the run id and the counts, so {@code GET
 * /actuator/batchjobs/reconciliationJob} shows what each run found. A run with findings still
 * COMPLETES: findings are reported (events, metrics, paydb), not failures; a run that could not
 * compare FAILS.
 */
@Configuration(proxyBeanMethods = false)
public class ReconciliationJobConfiguration {

  public static final String JOB_NAME = "reconciliationJob";

  /**
   * The window parameters are checked at launch: a malformed or too long window is refused before
   * an execution exists (the actuator answers 400 INVALID_PARAMETERS), not failed later.
   */
  @Bean
  Job reconciliationJob(
      JobRepository repository,
      PlatformTransactionManager transactionManager,
      Reconciler reconciler,
      ReconciliationProperties properties) {
    ReconciliationSettings settings = properties.settings();
    return new JobBuilder(JOB_NAME, repository)
        .validator(parameters -> validateWindow(parameters, settings))
        .start(reconcileStep(repository, transactionManager, reconciler, Clock.systemUTC()))
        .build();
  }

  static void validateWindow(JobParameters parameters, ReconciliationSettings settings)
      throws InvalidJobParametersException {
    try {
      settings.requireWithinMaxWindow(window(parameters, Instant.now()));
    } catch (IllegalArgumentException | DateTimeParseException e) {
      throw new InvalidJobParametersException(e.getMessage());
    }
  }

  static Step reconcileStep(
      JobRepository repository,
      PlatformTransactionManager transactionManager,
      Reconciler reconciler,
      Clock clock) {
    return new StepBuilder("reconcile", repository)
        .tasklet(
            (contribution, chunkContext) -> {
              var stepExecution = contribution.getStepExecution();
              JobParameters parameters = stepExecution.getJobExecution().getJobParameters();
              ReconciliationWindow window = window(parameters, clock.instant());
              ReconciliationReport report =
                  reconciler.run(
                      window, "batch:" + JOB_NAME + ":" + stepExecution.getJobExecutionId());
              contribution.setExitStatus(
                  new ExitStatus(
                      report.clean() ? "COMPLETED" : "COMPLETED_WITH_FINDINGS", summary(report)));
              stepExecution
                  .getExecutionContext()
                  .putString("reconciliation.runId", report.runId().toString());
              return RepeatStatus.FINISHED;
            },
            // The step's own bookkeeping only; the run's rows are written by RunStore on paydb.
            transactionManager)
        .build();
  }

  static ReconciliationWindow window(JobParameters parameters, Instant now) {
    String from = parameters.getString("windowFrom");
    String to = parameters.getString("windowTo");
    if (from == null && to == null) {
      return ReconciliationWindow.previousHour(now);
    }
    if (from == null || to == null) {
      throw new IllegalArgumentException("give both windowFrom and windowTo, or neither");
    }
    return new ReconciliationWindow(Instant.parse(from), Instant.parse(to));
  }

  static String summary(ReconciliationReport report) {
    StringBuilder text = new StringBuilder("run ").append(report.runId()).append(": ");
    text.append(report.total()).append(" discrepancies");
    for (Map.Entry<Discrepancy, Long> e : report.counts().entrySet()) {
      if (e.getValue() > 0) {
        text.append(", ").append(e.getKey().name()).append('=').append(e.getValue());
      }
    }
    text.append("; resolved settled=")
        .append(report.resolutions().settled())
        .append(" absent=")
        .append(report.resolutions().absent())
        .append(", still ambiguous=")
        .append(report.resolutions().stillAmbiguous());
    return text.toString();
  }
}
