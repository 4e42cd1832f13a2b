package dev.fencepost.db.durability;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.db.timeouts.DatabaseTimeoutsAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Every PostgreSQL pool of an application commits durably unless a benchmark says otherwise; that
 * the option takes effect on a real server with asynchronous commits is shown by the launcher's
 * {@code DurableCommitsOnARealServerTest}.
 */
class DurableCommitsTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  DurableCommitsAutoConfiguration.class, DatabaseTimeoutsAutoConfiguration.class))
          .withBean("somePool", HikariDataSource.class, DurableCommitsTest::postgresPool);

  private static HikariDataSource postgresPool() {
    HikariDataSource pool = new HikariDataSource();
    pool.setJdbcUrl("jdbc:postgresql://127.0.0.1:1/none");
    return pool;
  }

  @Test
  void everySessionOfAPostgresPoolCommitsSynchronouslyBesideItsTimeouts() {
    runner.run(
        context ->
            assertThat(
                    context
                        .getBean(HikariDataSource.class)
                        .getDataSourceProperties()
                        .getProperty("options"))
                .contains("-c synchronous_commit=on")
                .contains("-c statement_timeout="));
  }

  @Test
  void onlyAnExplicitBenchmarkChoiceLeavesItToTheServer() {
    runner
        .withPropertyValues("fencepost.db.allow-asynchronous-commit=true")
        .run(
            context ->
                assertThat(
                        context
                            .getBean(HikariDataSource.class)
                            .getDataSourceProperties()
                            .getProperty("options"))
                    .doesNotContain("synchronous_commit"));
  }

  @Test
  void aPoolOfAnotherDatabaseIsLeftAlone() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DurableCommitsAutoConfiguration.class))
        .withBean(
            "h2",
            HikariDataSource.class,
            () -> {
              HikariDataSource pool = new HikariDataSource();
              pool.setJdbcUrl("jdbc:h2:mem:none");
              return pool;
            })
        .run(
            context ->
                assertThat(context.getBean(HikariDataSource.class).getDataSourceProperties())
                    .doesNotContainKey("options"));
  }
}
