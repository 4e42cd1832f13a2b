package dev.fencepost.db.durability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.db.TestPools;
import dev.fencepost.db.timeouts.DatabaseTimeoutsAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Every PostgreSQL pool of an application commits durably unless a benchmark says otherwise; that
 * the option takes effect on a real server with asynchronous commits is shown by the launcher's
 * {@code DurableCommitsOnARealServerTest}.
 */
class DurableCommitsTest {

  private final ApplicationContextRunner runner =
      TestPools.runner(
          TestPools::postgres,
          DurableCommitsAutoConfiguration.class,
          DatabaseTimeoutsAutoConfiguration.class);

  @Test
  void everySessionOfAPostgresPoolCommitsSynchronouslyBesideItsTimeouts() {
    runner.run(
        context ->
            assertThat(TestPools.properties(context).getProperty("options"))
                .contains("-c synchronous_commit=on")
                .contains("-c statement_timeout="));
  }

  @Test
  void onlyAnExplicitBenchmarkChoiceLeavesItToTheServer() {
    runner
        .withPropertyValues("fencepost.db.allow-asynchronous-commit=true")
        .run(
            context ->
                assertThat(TestPools.properties(context).getProperty("options"))
                    .doesNotContain("synchronous_commit"));
  }
}
