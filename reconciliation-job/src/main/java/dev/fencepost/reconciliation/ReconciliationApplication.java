package dev.fencepost.reconciliation;

import dev.fencepost.batch.BatchDefaults;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * The reconciliation job's application: {@code reconciliationJob} on batchdb (batch-support), run
 * at start-up by the hourly CronJob or launched by hand with {@code POST
 * /actuator/batchjobs/reconciliationJob}, plus the operator endpoint {@code /actuator/payoutops}.
 */
@SpringBootApplication
public class ReconciliationApplication {

  public static void main(String[] args) {
    System.exit(
        SpringApplication.exit(
            new SpringApplicationBuilder(ReconciliationApplication.class)
                .properties(BatchDefaults.properties())
                .run(args)));
  }
}
