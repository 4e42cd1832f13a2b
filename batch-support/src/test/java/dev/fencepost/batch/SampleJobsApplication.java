package dev.fencepost.batch;

import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import dev.fencepost.testsupport.security.TestIssuer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.builder.JobBuilder;
import org.springframework.batch.core.repository.JobRepository;
import org.springframework.batch.core.step.builder.StepBuilder;
import org.springframework.batch.infrastructure.repeat.RepeatStatus;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * A batch application of a test's own jobs on batch-support's defaults, as the jobs run: batchdb as
 * its runtime role, the actuator's {@code batchjobs} and {@code health} on a management port of
 * their own, bearer tokens from the test's issuer, nothing launched at start.
 */
final class SampleJobsApplication {

  private SampleJobsApplication() {}

  /**
   * One job, {@code sampleJob}, of one step that finishes at once unless a test closes {@link
   * #release} first, to hold it inside its step and see it listed as running.
   */
  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class SampleJob {

    static volatile CountDownLatch release = new CountDownLatch(0);

    @Bean
    Job sampleJob(JobRepository repository, PlatformTransactionManager transactionManager) {
      return new JobBuilder("sampleJob", repository)
          .start(
              new StepBuilder("sampleStep", repository)
                  .tasklet(
                      (contribution, chunk) -> {
                        release.await(30, TimeUnit.SECONDS);
                        return RepeatStatus.FINISHED;
                      },
                      transactionManager)
                  .build())
          .build();
    }
  }

  static ConfigurableApplicationContext start(
      Class<?> jobs, EmbeddedPostgresExtension batchdb, TestIssuer issuer, String... moreArgs) {
    List<String> args = new ArrayList<>();
    args.add("--server.port=0");
    args.add("--server.address=127.0.0.1");
    args.add("--management.server.port=0");
    args.add("--management.server.address=127.0.0.1");
    args.add("--spring.batch.job.enabled=false");
    args.add("--management.endpoints.web.exposure.include=batchjobs,health");
    args.add("--spring.datasource.url=" + batchdb.jdbcUrl());
    args.add("--spring.datasource.username=" + batchdb.database().runtime().username());
    args.add("--spring.datasource.password=" + batchdb.database().runtime().password());
    args.add(issuer.resourceServerArgs().get(0));
    args.addAll(List.of(moreArgs));
    return new SpringApplicationBuilder(jobs)
        .properties("spring.config.name=" + BatchDefaults.CONFIG_NAME)
        .run(args.toArray(String[]::new));
  }

  /** The management port the application listens on. */
  static int managementPort(ConfigurableApplicationContext context) {
    return Integer.parseInt(context.getEnvironment().getProperty("local.management.port"));
  }
}
