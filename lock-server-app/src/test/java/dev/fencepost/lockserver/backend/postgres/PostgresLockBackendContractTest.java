package dev.fencepost.lockserver.backend.postgres;

import dev.fencepost.lockserver.backend.LockBackend;
import dev.fencepost.lockserver.backend.LockBackendContractTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

@Tag("FR-09")
class PostgresLockBackendContractTest extends LockBackendContractTest {

  @RegisterExtension static PostgresBackendExtension lockdb = new PostgresBackendExtension();

  @Override
  protected LockBackend backend() {
    return lockdb.backend();
  }
}
