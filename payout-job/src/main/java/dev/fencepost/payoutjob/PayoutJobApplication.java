package dev.fencepost.payoutjob;

import dev.fencepost.batch.BatchDefaults;
import java.util.LinkedHashMap;
import java.util.Map;
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

  @Bean
  @ConditionalOnBooleanProperty("fencepost.payout.loop.enabled")
  PayoutJobLoop payoutJobLoop(JobOperator operator, Job payoutJob, PayoutJobProperties properties) {
    return new PayoutJobLoop(operator, payoutJob, properties.getLoop().getIdlePause());
  }

  /**
   * The job's defaults, at the lowest precedence. Not an {@code application.yaml}: tests and the
   * local platform run other Spring applications in the same JVM, and a second {@code
   * application.yaml} on the class path would shadow theirs.
   */
  public static Map<String, Object> defaults() {
    Map<String, Object> defaults = new LinkedHashMap<>(BatchDefaults.properties());
    defaults.put("spring.application.name", "payout-job");
    defaults.put("spring.batch.job.name", PayoutJobConfiguration.JOB_NAME);
    defaults.put("spring.datasource.url", "jdbc:postgresql://localhost:5432/batchdb");
    defaults.put("spring.datasource.username", "${BATCHDB_USERNAME:postgres}");
    defaults.put("spring.datasource.password", "${BATCHDB_PASSWORD:postgres}");
    defaults.put("spring.datasource.hikari.maximum-pool-size", "4");
    defaults.put("server.port", "8084");
    defaults.put("management.endpoints.web.exposure.include", "health,info,prometheus,batchjobs");
    defaults.put("logging.structured.format.console", "ecs");
    defaults.put("fencepost.lock.client.base-url", "http://localhost:8081");
    // paydb (payment-resource's auto-configuration). The fencepost.payout.paydb.* names are the
    // ones before paydb had one prefix for every job; still read until every launcher passes the
    // new ones, then these fall back to the deployment defaults alone.
    defaults.put(
        "fencepost.paydb.url",
        "${fencepost.payout.paydb.url:jdbc:postgresql://localhost:5432/paydb}");
    defaults.put(
        "fencepost.paydb.username",
        "${fencepost.payout.paydb.username:${PAYDB_USERNAME:postgres}}");
    defaults.put(
        "fencepost.paydb.password",
        "${fencepost.payout.paydb.password:${PAYDB_PASSWORD:postgres}}");
    defaults.put("fencepost.paydb.maximum-pool-size", "4");
    return defaults;
  }

  /** The application with its {@link #defaults()}; {@code main} and tests start it this way. */
  public static SpringApplicationBuilder application() {
    return new SpringApplicationBuilder(PayoutJobApplication.class).properties(defaults());
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
