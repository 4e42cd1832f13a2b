package dev.fencepost.reconciliation;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
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
 * {@code reconciliationJob} (ADR 0075). Job parameters {@code windowFrom} and {@code windowTo}
 * (ISO-8601 instants) choose one window, reconciled once by {@link Reconciler#run} (a hand launch,
 * the chart's catch-up Job, the local platform); a window longer than {@code
 * fencepost.reconciliation.max-window} is refused at launch (ADR 0168). Without them the job
 * catches up ({@link CatchUp}, ADR 0177): every closed window since the last one completed, then
 * the re-reads due, at most {@code max-windows-per-run}; this is what the hourly CronJob runs. The
 * execution's exit description carries the run ids and the counts, so {@code GET
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
      CatchUp catchUp,
      ReconciliationProperties properties) {
    ReconciliationSettings settings = properties.settings();
    return new JobBuilder(JOB_NAME, repository)
        .validator(parameters -> validateWindow(parameters, settings))
        .start(reconcileStep(repository, transactionManager, reconciler, catchUp))
        .build();
  }

  static void validateWindow(JobParameters parameters, ReconciliationSettings settings)
      throws InvalidJobParametersException {
    try {
      ReconciliationWindow window = window(parameters);
      if (window != null) {
        settings.requireWithinMaxWindow(window);
      }
    } catch (IllegalArgumentException | DateTimeParseException e) {
      throw new InvalidJobParametersException(e.getMessage());
    }
  }

  static Step reconcileStep(
      JobRepository repository,
      PlatformTransactionManager transactionManager,
      Reconciler reconciler,
      CatchUp catchUp) {
    return new StepBuilder("reconcile", repository)
        .tasklet(
            (contribution, chunkContext) -> {
              var stepExecution = contribution.getStepExecution();
              JobParameters parameters = stepExecution.getJobExecution().getJobParameters();
              ReconciliationWindow window = window(parameters);
              String by = "batch:" + JOB_NAME + ":" + stepExecution.getJobExecutionId();
              List<ReconciliationReport> reports =
                  window != null
                      ? List.of(reconciler.run(window, by))
                      : catchUp.run(by).stream().map(CatchUp.Done::report).toList();
              boolean clean = reports.stream().allMatch(ReconciliationReport::clean);
              contribution.setExitStatus(
                  new ExitStatus(
                      clean ? "COMPLETED" : "COMPLETED_WITH_FINDINGS", summary(reports)));
              stepExecution
                  .getExecutionContext()
                  .putString(
                      "reconciliation.runIds",
                      String.join(",", reports.stream().map(r -> r.runId().toString()).toList()));
              return RepeatStatus.FINISHED;
            },
            // The step's own bookkeeping only; the run's rows are written by RunStore on paydb.
            transactionManager)
        .build();
  }

  /** The window the parameters give, or null when they give none (the job catches up). */
  static ReconciliationWindow window(JobParameters parameters) {
    String from = parameters.getString("windowFrom");
    String to = parameters.getString("windowTo");
    if (from == null && to == null) {
      return null;
    }
    if (from == null || to == null) {
      throw new IllegalArgumentException("give both windowFrom and windowTo, or neither");
    }
    return new ReconciliationWindow(Instant.parse(from), Instant.parse(to));
  }

  /** What the runs found; the exit description is bounded, so at most 10 runs are described. */
  static String summary(List<ReconciliationReport> reports) {
    if (reports.isEmpty()) {
      return "no window due";
    }
    StringBuilder text = new StringBuilder(reports.size() + " window(s)");
    for (ReconciliationReport r : reports.subList(0, Math.min(10, reports.size()))) {
      text.append("; ").append(r.window().from()).append(" ").append(summary(r));
    }
    if (reports.size() > 10) {
      text.append("; ...");
    }
    return text.toString();
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
