package dev.fencepost.batch;

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
 *   <li>{@code GET /actuator/batchjobs/{jobName}?limit=N} (default 20, at most 200): the newest
 *       executions first, with status, start/end, exit code and description, and the summed step
 *       counts.
 * </ul>
 */
@Endpoint(id = "batchjobs")
public class BatchJobsEndpoint {

  private static final Logger log = LoggerFactory.getLogger(BatchJobsEndpoint.class);
  static final int DEFAULT_LIMIT = 20;
  static final int MAX_LIMIT = 200;

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
      return new WebEndpointResponse<>(
          Map.of(
              "code", "INVALID_PARAMETERS",
              "detail", "parameters must not contain control characters"),
          400);
    }
    JobParametersBuilder builder = new JobParametersBuilder();
    if (parameters != null && !parameters.isBlank()) {
      for (String pair : parameters.split(",")) {
        int eq = pair.indexOf('=');
        if (eq <= 0) {
          return new WebEndpointResponse<>(
              Map.of(
                  "code", "INVALID_PARAMETERS",
                  "detail", "parameters are key=value pairs separated by commas"),
              400);
        }
        builder.addString(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
      }
    }
    JobParameters launchParameters = LaunchParameters.unique(builder.toJobParameters());
    try {
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
      log.atInfo()
          .addKeyValue("event", "batch.job.launch_refused")
          .addKeyValue("jobName", jobName)
          .log("launch of {} refused: {}", jobName, e.getMessage());
      return new WebEndpointResponse<>(
          Map.of("code", "INVALID_PARAMETERS", "jobName", jobName, "detail", e.getMessage()), 400);
    } catch (Exception e) {
      log.atWarn()
          .addKeyValue("event", "batch.job.launch_failed")
          .addKeyValue("jobName", jobName)
          .addKeyValue("reason", e.getClass().getSimpleName())
          .log("could not launch {}: {}", jobName, e.getMessage());
      return new WebEndpointResponse<>(
          Map.of("code", "LAUNCH_FAILED", "jobName", jobName, "detail", String.valueOf(e)), 409);
    }
  }

  /** Recent executions of {@code jobName}, newest first. */
  @ReadOperation
  public WebEndpointResponse<Object> executions(@Selector String jobName, @Nullable Integer limit) {
    if (!jobs.containsKey(jobName) && repository.getJobInstances(jobName, 0, 1).isEmpty()) {
      return notFound(jobName);
    }
    int max = limit == null ? DEFAULT_LIMIT : Math.max(1, Math.min(MAX_LIMIT, limit));
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

  private static WebEndpointResponse<Object> notFound(String jobName) {
    return new WebEndpointResponse<>(Map.of("code", "JOB_NOT_FOUND", "jobName", jobName), 404);
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
