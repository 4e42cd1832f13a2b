package dev.fencepost.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.db.durability.DurableCommitsAutoConfiguration;
import dev.fencepost.db.timeouts.DatabaseTimeoutsAutoConfiguration;
import dev.fencepost.db.tls.DatabaseTlsAutoConfiguration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Timeouts, durable commits and TLS are PostgreSQL session settings: a pool of another database (an
 * application's H2, say) is left exactly as it was, by each auto-configuration alone and by all
 * three together.
 */
class PoolsOfOtherDatabasesTest {

  @ParameterizedTest
  @ValueSource(
      classes = {
        DatabaseTimeoutsAutoConfiguration.class,
        DurableCommitsAutoConfiguration.class,
        DatabaseTlsAutoConfiguration.class
      })
  void aPoolOfAnotherDatabaseIsLeftAlone(Class<?> autoConfiguration) {
    TestPools.runner(() -> TestPools.pool("jdbc:h2:mem:other"), autoConfiguration)
        .run(context -> assertThat(TestPools.properties(context)).isEmpty());
  }

  @org.junit.jupiter.api.Test
  void allThreeTogetherLeaveAPoolOfAnotherDatabaseAlone() {
    TestPools.runner(
            () -> TestPools.pool("jdbc:h2:mem:other"),
            DatabaseTimeoutsAutoConfiguration.class,
            DurableCommitsAutoConfiguration.class,
            DatabaseTlsAutoConfiguration.class)
        .run(context -> assertThat(TestPools.properties(context)).isEmpty());
  }
}
