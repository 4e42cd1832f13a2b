package dev.fencepost.batch;

import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.parameters.InvalidJobParametersException;
import org.springframework.batch.core.job.parameters.JobParameters;
import org.springframework.batch.core.launch.JobExecutionAlreadyRunningException;
import org.springframework.batch.core.launch.JobInstanceAlreadyCompleteException;
import org.springframework.batch.core.launch.JobOperator;
import org.springframework.batch.core.launch.JobRestartException;
import org.springframework.boot.batch.autoconfigure.JobLauncherApplicationRunner;

/**
 * Boot's start-up job runner ({@code spring.batch.job.enabled}, {@code spring.batch.job.name}),
 * except that every run is a new instance ({@link LaunchParameters}): a CronJob that fires every
 * few minutes, or twelve pods started together, never collide on "instance already complete" or
 * "already running". The process's exit code is still the job's (Boot's {@code
 * JobExecutionExitCodeGenerator}).
 */
public class UniqueLaunchJobRunner extends JobLauncherApplicationRunner {

  public UniqueLaunchJobRunner(JobOperator jobOperator) {
    super(jobOperator);
  }

  @Override
  protected void execute(Job job, JobParameters jobParameters)
      throws JobExecutionAlreadyRunningException,
          JobRestartException,
          JobInstanceAlreadyCompleteException,
          InvalidJobParametersException {
    super.execute(job, LaunchParameters.unique(jobParameters));
  }
}
