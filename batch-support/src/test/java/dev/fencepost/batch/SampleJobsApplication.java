package dev.fencepost.batch;

import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import dev.fencepost.testsupport.security.TestIssuer;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A batch application of a test's own jobs on batch-support's defaults, as the jobs run: batchdb as
 * its runtime role, the actuator's {@code batchjobs} and {@code health} on a management port of
 * their own, bearer tokens from the test's issuer, nothing launched at start.
 */
final class SampleJobsApplication {

  private SampleJobsApplication() {}

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
