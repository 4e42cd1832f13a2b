package dev.fencepost.payoutjob;

import dev.fencepost.batch.BatchDefaults;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.launch.JobOperator;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The payout job as a process. Two modes (ADR 0060): run once and exit with the job's exit code
 * ({@code fencepost.payout.exit-when-done=true}, CronJob style and the local platform's workers),
 * or stay up and run the job in a loop ({@code fencepost.payout.loop.enabled=true} with {@code
 * spring.batch.job.enabled=false}, the Kubernetes Deployment). Either way {@code POST
 * /actuator/batchjobs/payoutJob} launches a run by hand.
 */
@SpringBootApplication(proxyBeanMethods = false)
public class PayoutJobApplication {

  /** The job's own configuration file's name, {@code payout-job.yaml}. */
  public static final String CONFIG_NAME = "payout-job";

  @Bean
  @ConditionalOnBooleanProperty("fencepost.payout.loop.enabled")
  PayoutJobLoop payoutJobLoop(JobOperator operator, Job payoutJob, PayoutJobProperties properties) {
    return new PayoutJobLoop(operator, payoutJob, properties.getLoop().getIdlePause());
  }

  /**
   * The job as {@code main} starts it; tests, the local platform and the experiments start it the
   * same way. It reads batch-support's {@code batch-defaults.yaml} and then its own {@code
   * payout-job.yaml}, never an {@code application.yaml}, so another application's file on the same
   * class path cannot reach it.
   */
  public static SpringApplicationBuilder application() {
    return new SpringApplicationBuilder(PayoutJobApplication.class)
        .properties("spring.config.name=" + BatchDefaults.configNames(CONFIG_NAME));
  }

  public static void main(String[] args) {
    ConfigurableApplicationContext context = application().run(args);
    if (context
        .getEnvironment()
        .getProperty("fencepost.payout.exit-when-done", Boolean.class, false)) {
      System.exit(SpringApplication.exit(context));
    }
  }
}
