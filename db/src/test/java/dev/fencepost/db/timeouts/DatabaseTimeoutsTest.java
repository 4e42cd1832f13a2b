package dev.fencepost.db.timeouts;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.db.TestPools;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Every PostgreSQL pool of an application gets the timeouts, from {@code fencepost.db.timeouts.*}
 * or the defaults; inconsistent settings stop the application. That they take effect on a real
 * connection is shown by the black-hole tests of lock-server-app and payment-resource.
 */
class DatabaseTimeoutsTest {

  private final ApplicationContextRunner runner =
      TestPools.runner(DatabaseTimeoutsTest::postgresPool, DatabaseTimeoutsAutoConfiguration.class);

  private static HikariDataSource postgresPool() {
    HikariDataSource pool = TestPools.postgres();
    pool.addDataSourceProperty("options", "-c search_path=app");
    return pool;
  }

  @Test
  void aPoolGetsTheDefaultBoundsOnBothSidesOfTheConnection() {
    runner.run(
        context -> {
          HikariDataSource pool = context.getBean(HikariDataSource.class);
          assertThat(pool.getConnectionTimeout()).isEqualTo(5_000);
          assertThat(pool.getDataSourceProperties())
              .containsEntry("socketTimeout", "8")
              .containsEntry("connectTimeout", "5")
              .containsEntry("loginTimeout", "5")
              .containsEntry(
                  "options",
                  "-c search_path=app -c statement_timeout=5000 -c lock_timeout=3000"
                      + " -c idle_in_transaction_session_timeout=5000");
        });
  }

  @Test
  void theBoundsAreSetThroughProperties() {
    runner
        .withPropertyValues(
            "fencepost.db.timeouts.connection-timeout=1500ms",
            "fencepost.db.timeouts.socket-timeout=2500ms",
            "fencepost.db.timeouts.statement-timeout=2s",
            "fencepost.db.timeouts.lock-timeout=1s",
            "fencepost.db.timeouts.idle-in-transaction-timeout=750ms")
        .run(
            context -> {
              HikariDataSource pool = context.getBean(HikariDataSource.class);
              assertThat(pool.getConnectionTimeout()).isEqualTo(1_500);
              // pgjdbc counts whole seconds: rounded up, never down to "no limit".
              assertThat(pool.getDataSourceProperties())
                  .containsEntry("socketTimeout", "3")
                  .containsEntry("connectTimeout", "2")
                  .containsEntry(
                      "options",
                      "-c search_path=app -c statement_timeout=2000 -c lock_timeout=1000"
                          + " -c idle_in_transaction_session_timeout=750");
            });
  }

  @Test
  void aSocketTimeoutNotAboveTheStatementTimeoutStopsTheApplication() {
    runner
        .withPropertyValues(
            "fencepost.db.timeouts.socket-timeout=5s", "fencepost.db.timeouts.statement-timeout=5s")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("must exceed statement-timeout"));
  }

  @Test
  void aZeroBoundIsRefusedRatherThanTakenAsNoLimit() {
    runner
        .withPropertyValues("fencepost.db.timeouts.idle-in-transaction-timeout=0s")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("idle-in-transaction-timeout must be positive"));
  }
}
