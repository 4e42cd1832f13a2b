package dev.fencepost.reconciliation;

import dev.fencepost.batch.BatchDefaults;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The reconciliation job's application: {@code reconciliationJob} on batchdb (batch-support), run
 * at start-up by the hourly CronJob or launched by hand with {@code POST
 * /actuator/batchjobs/reconciliationJob}, plus the operator endpoint {@code /actuator/payoutops}.
 *
 * <p>With {@code spring.batch.job.enabled} (the default) the process runs the job once and exits
 * with its exit code; with it false the process stays up for hand launches and operator actions.
 */
@SpringBootApplication
public class ReconciliationApplication {

  /** The job's own configuration file's name, {@code reconciliation-job.yaml}. */
  public static final String CONFIG_NAME = "reconciliation-job";

  /**
   * The job as {@code main} starts it; tests start it the same way. It reads batch-support's {@code
   * batch-defaults.yaml} and then its own {@code reconciliation-job.yaml}, never an {@code
   * application.yaml}, so another application's file on the same class path cannot reach it.
   */
  public static SpringApplicationBuilder application() {
    return new SpringApplicationBuilder(ReconciliationApplication.class)
        .properties("spring.config.name=" + BatchDefaults.configNames(CONFIG_NAME));
  }

  public static void main(String[] args) {
    ConfigurableApplicationContext context = application().run(args);
    if (context.getEnvironment().getProperty("spring.batch.job.enabled", Boolean.class, true)) {
      System.exit(SpringApplication.exit(context));
    }
  }
}
