package dev.fencepost.batch;

import dev.fencepost.security.EndpointAccess;
import java.util.List;
import org.springframework.batch.core.configuration.JobRegistry;
import org.springframework.batch.core.configuration.support.MapJobRegistry;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.launch.JobOperator;
import org.springframework.batch.core.launch.support.TaskExecutorJobOperator;
import org.springframework.batch.core.repository.JobRepository;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.batch.autoconfigure.BatchJobLauncherAutoConfiguration;
import org.springframework.boot.batch.autoconfigure.BatchProperties;
import org.springframework.boot.batch.autoconfigure.JobLauncherApplicationRunner;
import org.springframework.boot.batch.jdbc.autoconfigure.BatchJdbcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.util.StringUtils;

/**
 * Wires {@link BatchJobsEndpoint} next to Boot's Batch auto-configuration (which builds the JDBC
 * job repository on the application's DataSource, batchdb). The endpoint launches on its own
 * bounded executor (two threads, a queue of four launches), so a hand launch never blocks the HTTP
 * request for the length of a job and cannot pile up unbounded work.
 */
@AutoConfiguration(
    after = BatchJdbcAutoConfiguration.class,
    before = BatchJobLauncherAutoConfiguration.class)
@ConditionalOnBean(JobRepository.class)
public final class BatchSupportAutoConfiguration {

  /** Boot's start-up runner, but every run a new instance (replaces Boot's, same properties). */
  @Bean
  @ConditionalOnMissingBean(JobLauncherApplicationRunner.class)
  @ConditionalOnProperty(
      name = "spring.batch.job.enabled",
      havingValue = "true",
      matchIfMissing = true)
  UniqueLaunchJobRunner uniqueLaunchJobRunner(
      JobOperator jobOperator,
      BatchProperties properties,
      ObjectProvider<Job> jobs,
      ObjectProvider<JobRegistry> registry) {
    UniqueLaunchJobRunner runner = new UniqueLaunchJobRunner(jobOperator);
    runner.setJobs(jobs.orderedStream().toList());
    registry.ifAvailable(runner::setJobRegistry);
    String jobName = properties.getJob().getName();
    if (StringUtils.hasText(jobName)) {
      runner.setJobName(jobName);
    }
    return runner;
  }

  /**
   * A job application's own endpoint rules: none. Everything it serves is a management endpoint,
   * which security-support gives to OPERATOR alone (health and prometheus open): launching and
   * listing jobs included (ADR 0147). An application that serves more declares its own bean.
   */
  @Bean
  @ConditionalOnMissingBean(EndpointAccess.class)
  EndpointAccess batchApplicationEndpoints() {
    return rules -> {};
  }

  /** The executor behind hand launches; shut down with the context. */
  @Bean(name = "batchJobsLaunchExecutor", defaultCandidate = false)
  @ConditionalOnMissingBean(name = "batchJobsLaunchExecutor")
  @ConditionalOnAvailableEndpoint(BatchJobsEndpoint.class)
  ThreadPoolTaskExecutor batchJobsLaunchExecutor() {
    ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
    executor.setCorePoolSize(2);
    executor.setMaxPoolSize(2);
    executor.setQueueCapacity(4);
    executor.setThreadNamePrefix("batchjobs-launch-");
    executor.setWaitForTasksToCompleteOnShutdown(false);
    return executor;
  }

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnAvailableEndpoint(BatchJobsEndpoint.class)
  BatchJobsEndpoint batchJobsEndpoint(
      ObjectProvider<Job> jobs,
      JobRepository repository,
      ObjectProvider<JobRegistry> registry,
      @org.springframework.beans.factory.annotation.Qualifier("batchJobsLaunchExecutor")
          ThreadPoolTaskExecutor batchJobsLaunchExecutor)
      throws Exception {
    List<Job> all = jobs.orderedStream().toList();
    JobRegistry jobRegistry = registry.getIfAvailable();
    if (jobRegistry == null) {
      MapJobRegistry local = new MapJobRegistry();
      for (Job job : all) {
        local.register(job);
      }
      jobRegistry = local;
    }
    TaskExecutorJobOperator operator = new TaskExecutorJobOperator();
    operator.setJobRepository(repository);
    operator.setJobRegistry(jobRegistry);
    operator.setTaskExecutor(batchJobsLaunchExecutor);
    operator.afterPropertiesSet();
    return new BatchJobsEndpoint(all, repository, operator);
  }
}
