package dev.fencepost.experiments.worker;

import dev.fencepost.payoutjob.PayoutJobApplication;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The payout job as an experiment subject: exactly {@link PayoutJobApplication}, plus the bindings
 * of {@link ExperimentBindings} read from {@code fencepost.experiment.*}. Those properties exist
 * only in this module, so no production deployment can switch a guard off or park a worker (ADR
 * 0100).
 */
public final class ExperimentWorker {

  private ExperimentWorker() {}

  public static void main(String[] args) {
    ConfigurableApplicationContext context =
        PayoutJobApplication.application().initializers(new ExperimentBindings()).run(args);
    if (context
        .getEnvironment()
        .getProperty("fencepost.payout.exit-when-done", Boolean.class, false)) {
      System.exit(SpringApplication.exit(context));
    }
  }
}
