package dev.fencepost.reconciliation;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.batch.core.ExitStatus;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.builder.JobBuilder;
import org.springframework.batch.core.job.parameters.InvalidJobParametersException;
import org.springframework.batch.core.job.parameters.JobParameters;
import org.springframework.batch.core.listener.ChunkListener;
import org.springframework.batch.core.listener.ItemWriteListener;
import org.springframework.batch.core.listener.StepExecutionListener;
import org.springframework.batch.core.listener.StepListener;
import org.springframework.batch.core.repository.JobRepository;
import org.springframework.batch.core.step.Step;
import org.springframework.batch.core.step.builder.SimpleStepBuilder;
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

  /** Entries per chunk of the {@code entries} step (one transaction on paydb and on batchdb). */
  static final int CHUNK = 500;

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
      WindowLedger ledger,
      ReconciliationProperties properties) {
    return job(
        repository,
        transactionManager,
        reconciler,
        catchUp,
        ledger,
        properties.settings(),
        CHUNK,
        List.of());
  }

  /**
   * The job (ADR 0178): {@code plan} (a tasklet: the window passes to reconcile, kept in the job's
   * execution context so a restart reconciles the same ones), {@code entries} (chunk-oriented: the
   * passes' statement entries read in pages, classified, recorded with their findings chunk by
   * chunk; restartable from the job repository) and {@code compare} (a tasklet: per pass,
   * resolution, the comparison with paydb and the proxy, and the run's record). {@code listeners}
   * are added to the {@code entries} step (tests use one to fail it mid-chunk).
   */
  static Job job(
      JobRepository repository,
      PlatformTransactionManager transactionManager,
      Reconciler reconciler,
      CatchUp catchUp,
      WindowLedger ledger,
      ReconciliationSettings settings,
      int chunk,
      List<StepListener> listeners) {
    ScanReader reader = new ScanReader(reconciler.scan());
    SimpleStepBuilder<StatementScan.EntryFacts, StatementScan.Classified> entries =
        new StepBuilder("entries", repository)
            .<StatementScan.EntryFacts, StatementScan.Classified>chunk(chunk, transactionManager)
            .reader(reader)
            .processor(reconciler.scan().processor())
            .writer(reconciler.scan().writer())
            .listener((StepExecutionListener) reader);
    for (StepListener listener : listeners) {
      if (listener instanceof ItemWriteListener<?> write) {
        @SuppressWarnings("unchecked")
        ItemWriteListener<StatementScan.Classified> typed =
            (ItemWriteListener<StatementScan.Classified>) write;
        entries.listener(typed);
      } else if (listener instanceof ChunkListener chunkListener) {
        entries.listener(chunkListener);
      } else if (listener instanceof StepExecutionListener stepListener) {
        entries.listener(stepListener);
      } else {
        throw new IllegalArgumentException("unsupported listener " + listener);
      }
    }
    return new JobBuilder(JOB_NAME, repository)
        .validator(parameters -> validateWindow(parameters, settings))
        .start(planStep(repository, transactionManager, catchUp))
        .next(entries.build())
        .next(compareStep(repository, transactionManager, reconciler, ledger))
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

  /** The given window, or the catch-up's passes (ADR 0177), each with its scan key. */
  static Step planStep(
      JobRepository repository, PlatformTransactionManager transactionManager, CatchUp catchUp) {
    return new StepBuilder("plan", repository)
        .tasklet(
            (contribution, chunkContext) -> {
              var stepExecution = contribution.getStepExecution();
              var jobContext = stepExecution.getJobExecution().getExecutionContext();
              if (!jobContext.containsKey(ScanReader.PLAN)) {
                JobParameters parameters = stepExecution.getJobExecution().getJobParameters();
                ReconciliationWindow window = window(parameters);
                String instance = "job-" + stepExecution.getJobExecution().getJobInstanceId();
                List<ScanReader.Planned> plan = new ArrayList<>();
                if (window != null) {
                  plan.add(new ScanReader.Planned(window, "GIVEN", instance + ":given"));
                } else {
                  for (CatchUp.Planned p : catchUp.due(catchUp.now())) {
                    plan.add(
                        new ScanReader.Planned(
                            p.window(),
                            p.pass().name(),
                            instance + ":" + p.window().from() + ":" + p.pass()));
                  }
                }
                jobContext.putString(ScanReader.PLAN, ScanReader.encode(plan));
              }
              return RepeatStatus.FINISHED;
            },
            transactionManager)
        .build();
  }

  /**
   * Per planned pass: {@link Reconciler#run} over the pass's scan; catch-up passes are started and
   * completed in the {@link WindowLedger} (a pass completed by an earlier attempt is skipped).
   */
  static Step compareStep(
      JobRepository repository,
      PlatformTransactionManager transactionManager,
      Reconciler reconciler,
      WindowLedger ledger) {
    return new StepBuilder("compare", repository)
        .tasklet(
            (contribution, chunkContext) -> {
              var stepExecution = contribution.getStepExecution();
              List<ScanReader.Planned> plan =
                  ScanReader.decode(
                      stepExecution
                          .getJobExecution()
                          .getExecutionContext()
                          .getString(ScanReader.PLAN, ""));
              String by = "batch:" + JOB_NAME + ":" + stepExecution.getJobExecutionId();
              List<ReconciliationReport> reports = new ArrayList<>();
              for (ScanReader.Planned p : plan) {
                if ("GIVEN".equals(p.pass())) {
                  reports.add(reconciler.run(p.window(), by, p.scanKey()));
                  continue;
                }
                WindowLedger.Pass pass = WindowLedger.Pass.valueOf(p.pass());
                if (!ledger.start(p.window(), pass, java.time.Instant.now())) {
                  continue;
                }
                ReconciliationReport report;
                try {
                  report =
                      reconciler.run(p.window(), by + ":" + p.pass().toLowerCase(), p.scanKey());
                } catch (RuntimeException e) {
                  ledger.fail(p.window(), pass, e.toString(), java.time.Instant.now());
                  throw e;
                }
                ledger.complete(p.window(), pass, report);
                reports.add(report);
              }
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
            // The steps' own bookkeeping only; the run's rows are written by RunStore on paydb.
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
