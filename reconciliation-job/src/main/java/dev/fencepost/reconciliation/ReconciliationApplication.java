package dev.fencepost.reconciliation;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The reconciliation job's application (issue 8): the Batch job, plus the operator endpoint. */
@SpringBootApplication
public class ReconciliationApplication {

  public static void main(String[] args) {
    System.exit(
        SpringApplication.exit(SpringApplication.run(ReconciliationApplication.class, args)));
  }
}
