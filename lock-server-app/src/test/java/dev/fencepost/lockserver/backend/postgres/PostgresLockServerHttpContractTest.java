package dev.fencepost.lockserver.backend.postgres;

import dev.fencepost.lockserver.http.LockServerHttpContractTest;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresLockServerHttpContractTest extends LockServerHttpContractTest {

  @RegisterExtension
  static EmbeddedPostgresExtension lockdb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/lockdb/db.changelog-master.yaml");

  @Override
  protected Map<String, Object> backendProperties() {
    return Map.of(
        "fencepost.lock.backend", "postgres",
        "spring.datasource.url", lockdb.jdbcUrl(),
        "spring.datasource.username", lockdb.database().runtime().username(),
        "spring.datasource.password", lockdb.database().runtime().password());
  }
}
