package dev.fencepost.batch;

import java.util.UUID;
import org.springframework.batch.core.job.parameters.JobParameters;
import org.springframework.batch.core.job.parameters.JobParametersBuilder;

/**
 * Makes every launch a new job instance: the given parameters plus a random {@code launch.id}.
 *
 * <p>Why not an incrementer: Batch's {@code RunIdIncrementer} reads the last instance and adds one,
 * so two pods starting together would pick the same id and one would be refused; and Batch 6
 * ignores the caller's parameters for a job that has any incrementer. A random identifying
 * parameter added at launch lets any number of instances run at once (A-05, UC-02), which for these
 * jobs is the normal case, and keeps the caller's parameters (a reconciliation window, A-10). Jobs
 * using batch-support therefore declare no incrementer; both launch paths (the actuator endpoint
 * and the start-up runner) add the id.
 */
public final class LaunchParameters {

  /** The identifying parameter added to every launch. */
  public static final String LAUNCH_ID = "launch.id";

  private LaunchParameters() {}

  /** {@code parameters} plus a fresh {@value #LAUNCH_ID}. */
  public static JobParameters unique(JobParameters parameters) {
    JobParametersBuilder builder =
        parameters == null ? new JobParametersBuilder() : new JobParametersBuilder(parameters);
    return builder.addString(LAUNCH_ID, UUID.randomUUID().toString()).toJobParameters();
  }
}
