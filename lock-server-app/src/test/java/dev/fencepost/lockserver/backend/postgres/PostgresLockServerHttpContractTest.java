package dev.fencepost.lockserver.backend.postgres;

import dev.fencepost.lockserver.http.LockServerHttpContractTest;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresLockServerHttpContractTest extends LockServerHttpContractTest {

  @RegisterExtension
  static EmbeddedPostgresExtension lockdb = EmbeddedPostgresExtension.withChangelog(null);

  @Override
  protected Map<String, Object> backendProperties() {
    return Map.of(
        "fencepost.lock.backend", "postgres",
        "spring.datasource.url", lockdb.jdbcUrl(),
        "spring.datasource.username", "postgres",
        "spring.datasource.password", "postgres");
  }
}
