package dev.fencepost.batch;

import dev.fencepost.web.EndpointProblems;
import dev.fencepost.web.FreeText;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.JobExecution;
import org.springframework.batch.core.job.JobInstance;
import org.springframework.batch.core.job.parameters.InvalidJobParametersException;
import org.springframework.batch.core.job.parameters.JobParameters;
import org.springframework.batch.core.job.parameters.JobParametersBuilder;
import org.springframework.batch.core.launch.JobOperator;
import org.springframework.batch.core.repository.JobRepository;
import org.springframework.batch.core.step.StepExecution;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.http.HttpStatus;

/**
 * {@code /actuator/batchjobs/{jobName}}: launch a job by hand and see what recent executions did
 * (launch and list, the same for every job). Everything it reports comes from the job repository in
 * batchdb, so it shows executions of every pod, not only this one.
 *
 * <ul>
 *   <li>{@code POST /actuator/batchjobs/{jobName}} with {@code Content-Type: application/json} and
 *       body {@code {}}, or {@code {"parameters":"k1=v1,k2=v2"}} (actuator bodies are flat, so job
 *       parameters travel as one string of string-typed pairs): starts a new instance
 *       asynchronously (every launch gets a fresh {@code launch.id}, see {@link
 *       UniqueLaunchIncrementer}) and answers 202 with the execution; 404 for an unknown job.
 *   <li>{@code GET /actuator/batchjobs/{jobName}?limit=N} (default 20, 1 to 200): the newest
 *       executions first, with status, start/end, exit code and description, and the summed step
 *       counts.
 * </ul>
 *
 * <p>Every refusal is {@code application/problem+json} with a stable {@code code} ({@link
 * EndpointProblems}): 404 {@code JOB_NOT_FOUND}; 400 {@code INVALID_PARAMETERS} for parameters that
 * are not {@code key=value} pairs, hold a control character, are longer than batchdb stores, or
 * that the job's validator refuses, all before anything is written; 400 {@code INVALID_REQUEST} for
 * a limit that is not an integer in 1..200; 409 {@code LAUNCH_FAILED} when the launch itself
 * failed.
 */
@Endpoint(id = "batchjobs")
public class BatchJobsEndpoint {

  private static final Logger log = LoggerFactory.getLogger(BatchJobsEndpoint.class);
  static final int DEFAULT_LIMIT = 20;
  static final int MAX_LIMIT = 200;

  /** batchdb's {@code JOB_NAME} and {@code PARAMETER_NAME} columns. */
  static final int MAX_JOB_NAME = 100;

  static final int MAX_PARAMETER_NAME = 100;

  /** batchdb's {@code PARAMETER_VALUE} column. */
  static final int MAX_PARAMETER_VALUE = 2500;

  private final Map<String, Job> jobs;
  private final JobRepository repository;
  private final JobOperator asyncOperator;

  /**
   * @param jobs the jobs this application runs, by name
   * @param repository the job repository (batchdb)
   * @param asyncOperator a job operator whose task executor runs the job on another thread, so the
   *     request returns as soon as the execution exists
   */
  public BatchJobsEndpoint(List<Job> jobs, JobRepository repository, JobOperator asyncOperator) {
    this.jobs = new TreeMap<>();
    jobs.forEach(job -> this.jobs.put(job.getName(), job));
    this.repository = repository;
    this.asyncOperator = asyncOperator;
  }

  /** Launches a new instance of {@code jobName}. */
  @WriteOperation
  public WebEndpointResponse<Object> launch(@Selector String jobName, @Nullable String parameters) {
    Job job = jobs.get(jobName);
    if (job == null) {
      return notFound(jobName);
    }
    if (FreeText.hasControlCharacter(parameters)) {
      // jobdb cannot store NUL; a refusal here is a 400, not a failed launch (ADR 0166).
      return invalidParameters(jobName, "parameters must not contain control characters");
    }
    JobParametersBuilder builder = new JobParametersBuilder();
    if (parameters != null && !parameters.isBlank()) {
      // -1: an empty pair (a lone or a trailing comma) is refused, not dropped.
      for (String pair : parameters.split(",", -1)) {
        int eq = pair.indexOf('=');
        String name = eq < 0 ? "" : pair.substring(0, eq).trim();
        if (name.isEmpty()) {
          return invalidParameters(
              jobName, "parameters are key=value pairs separated by commas, each with a key");
        }
        String value = pair.substring(eq + 1).trim();
        // batchdb's columns: a longer name or value failed the launch half-way (a 409 after a
        // job instance was written); refused here before anything is.
        if (name.length() > MAX_PARAMETER_NAME || value.length() > MAX_PARAMETER_VALUE) {
          return invalidParameters(
              jobName,
              "a parameter's name has at most "
                  + MAX_PARAMETER_NAME
                  + " characters and its value at most "
                  + MAX_PARAMETER_VALUE);
        }
        builder.addString(name, value);
      }
    }
    JobParameters launchParameters = LaunchParameters.unique(builder.toJobParameters());
    try {
      // Validated here first: Batch validates after it has written the job instance, so a
      // refused launch left an orphan batch_job_instance row behind.
      job.getJobParametersValidator().validate(launchParameters);
      JobExecution execution = asyncOperator.start(job, launchParameters);
      log.atInfo()
          .addKeyValue("event", "batch.job.launched")
          .addKeyValue("jobName", jobName)
          .addKeyValue("executionId", execution.getId())
          .addKeyValue("via", "actuator")
          .log("launched {} as execution {}", jobName, execution.getId());
      return new WebEndpointResponse<>(ExecutionSummary.of(execution), 202);
    } catch (InvalidJobParametersException e) {
      // The job's own validator refused the parameters before any execution was created.
      return invalidParameters(jobName, e.getMessage());
    } catch (Exception e) {
      log.atWarn()
          .addKeyValue("event", "batch.job.launch_failed")
          .addKeyValue("jobName", jobName)
          .addKeyValue("reason", e.getClass().getSimpleName())
          .log("could not launch {}: {}", jobName, e.getMessage());
      return EndpointProblems.of(
          HttpStatus.CONFLICT, "LAUNCH_FAILED", String.valueOf(e), Map.of("jobName", jobName));
    }
  }

  /** Recent executions of {@code jobName}, newest first. */
  @ReadOperation
  public WebEndpointResponse<Object> executions(@Selector String jobName, @Nullable String limit) {
    // A name batchdb cannot hold names no job: not looked up (NUL cannot even be sent to it).
    boolean storable = jobName.length() <= MAX_JOB_NAME && !FreeText.hasControlCharacter(jobName);
    if (!jobs.containsKey(jobName)
        && (!storable || repository.getJobInstances(jobName, 0, 1).isEmpty())) {
      return notFound(jobName);
    }
    Integer max = limit(limit);
    if (max == null) {
      log.atInfo()
          .addKeyValue("event", "batch.jobs.refused")
          .addKeyValue("code", "INVALID_REQUEST")
          .addKeyValue("field", "limit")
          .log("listing refused: limit out of range");
      return EndpointProblems.of(
          HttpStatus.BAD_REQUEST,
          "INVALID_REQUEST",
          "limit must be an integer in 1.." + MAX_LIMIT,
          Map.of("field", "limit"));
    }
    List<ExecutionSummary> result = new ArrayList<>();
    for (JobInstance instance : repository.getJobInstances(jobName, 0, max)) {
      for (JobExecution execution : repository.getJobExecutions(instance)) {
        result.add(ExecutionSummary.of(execution));
      }
    }
    result.sort(Comparator.comparingLong(ExecutionSummary::executionId).reversed());
    return new WebEndpointResponse<>(
        Map.of("jobName", jobName, "executions", result.subList(0, Math.min(max, result.size()))),
        200);
  }

  /** The limit asked for, the default when none; null when it is not an integer in range. */
  private static Integer limit(String text) {
    if (text == null) {
      return DEFAULT_LIMIT;
    }
    try {
      int limit = Integer.parseInt(text);
      return limit >= 1 && limit <= MAX_LIMIT ? limit : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static WebEndpointResponse<Object> notFound(String jobName) {
    log.atInfo()
        .addKeyValue("event", "batch.jobs.refused")
        .addKeyValue("code", "JOB_NOT_FOUND")
        .addKeyValue("jobName", FreeText.printable(jobName))
        .log("no such job");
    return EndpointProblems.of(
        HttpStatus.NOT_FOUND,
        "JOB_NOT_FOUND",
        "no such job",
        Map.of("jobName", FreeText.printable(jobName)));
  }

  /** A launch refused before anything was written: logged, and a 400 problem. */
  private static WebEndpointResponse<Object> invalidParameters(String jobName, String detail) {
    log.atInfo()
        .addKeyValue("event", "batch.job.launch_refused")
        .addKeyValue("jobName", jobName)
        .log("launch of {} refused: {}", jobName, detail);
    return EndpointProblems.of(
        HttpStatus.BAD_REQUEST, "INVALID_PARAMETERS", detail, Map.of("jobName", jobName));
  }

  /**
   * One execution as the endpoint reports it; the counts are summed over its steps.
   *
   * @param executionId the execution's id in batchdb
   * @param instanceId its job instance
   * @param jobName the job
   * @param status Batch's status (STARTING, STARTED, COMPLETED, FAILED, ...)
   * @param startTime when it started (null while STARTING)
   * @param endTime when it ended (null while running)
   * @param exitCode the exit code
   * @param exitDescription the exit description (a failure's reason)
   * @param readCount items read
   * @param writeCount items written
   * @param filterCount items the processor filtered out (for payoutJob: skipped, e.g. lock held)
   * @param skipCount items skipped by fault tolerance
   * @param parameters the job parameters
   */
  public record ExecutionSummary(
      long executionId,
      long instanceId,
      String jobName,
      String status,
      LocalDateTime startTime,
      LocalDateTime endTime,
      String exitCode,
      String exitDescription,
      long readCount,
      long writeCount,
      long filterCount,
      long skipCount,
      Map<String, String> parameters) {

    static ExecutionSummary of(JobExecution execution) {
      long read = 0;
      long write = 0;
      long filter = 0;
      long skip = 0;
      for (StepExecution step : execution.getStepExecutions()) {
        read += step.getReadCount();
        write += step.getWriteCount();
        filter += step.getFilterCount();
        skip += step.getSkipCount();
      }
      Map<String, String> parameters = new TreeMap<>();
      execution
          .getJobParameters()
          .parameters()
          .forEach(p -> parameters.put(p.name(), String.valueOf(p.value())));
      return new ExecutionSummary(
          execution.getId(),
          execution.getJobInstance().getInstanceId(),
          execution.getJobInstance().getJobName(),
          execution.getStatus().name(),
          execution.getStartTime(),
          execution.getEndTime(),
          execution.getExitStatus().getExitCode(),
          execution.getExitStatus().getExitDescription(),
          read,
          write,
          filter,
          skip,
          parameters);
    }
  }
}
