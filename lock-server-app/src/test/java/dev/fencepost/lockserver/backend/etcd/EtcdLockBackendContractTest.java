package dev.fencepost.lockserver.backend.etcd;

import dev.fencepost.lockserver.backend.LockBackend;
import dev.fencepost.lockserver.backend.LockBackendContractTest;
import dev.fencepost.testsupport.etcd.EtcdClusterExtension;
import io.etcd.jetcd.Client;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The backend contract, unchanged, against a real single-member etcd with the production defaults
 * of {@link EtcdBackendProperties} (FR-09).
 */
@Tag("FR-09")
class EtcdLockBackendContractTest extends LockBackendContractTest {

  @RegisterExtension static EtcdClusterExtension etcd = EtcdClusterExtension.singleMember();

  private static Client client;
  private static EtcdLockBackend backend;

  @BeforeAll
  static void start() {
    client = EtcdFailover.client(etcd.cluster());
    backend = EtcdFailover.backend(client, "/contract/");
  }

  @AfterAll
  static void stop() {
    client.close();
  }

  @Override
  protected LockBackend backend() {
    return backend;
  }
}
