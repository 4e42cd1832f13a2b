package dev.fencepost.lockserver.backend.postgres;

import dev.fencepost.lockserver.backend.LockBackend;
import dev.fencepost.lockserver.backend.LockBackendContractTest;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

@Tag("FR-09")
class PostgresLockBackendContractTest extends LockBackendContractTest {

  @RegisterExtension
  static EmbeddedPostgresExtension lockdb =
      EmbeddedPostgresExtension.withChangelog(PostgresBackends.LOCKDB_CHANGELOG);

  private static PostgresBackends.Running running;

  @BeforeAll
  static void start() {
    running = PostgresBackends.start(lockdb.dataSource());
  }

  @AfterAll
  static void stop() {
    running.close();
  }

  @Override
  protected LockBackend backend() {
    return running.backend();
  }
}
