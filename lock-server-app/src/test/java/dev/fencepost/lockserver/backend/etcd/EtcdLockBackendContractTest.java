package dev.fencepost.lockserver.backend.etcd;

import dev.fencepost.lockserver.backend.LockBackend;
import dev.fencepost.lockserver.backend.LockBackendContractTest;
import dev.fencepost.testsupport.etcd.EtcdClusterExtension;
import io.etcd.jetcd.Client;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The backend contract, unchanged, against a real single-member etcd (FR-09). */
class EtcdLockBackendContractTest extends LockBackendContractTest {

  @RegisterExtension static EtcdClusterExtension etcd = EtcdClusterExtension.singleMember();

  private static Client client;
  private static EtcdLockBackend backend;

  @BeforeAll
  static void start() {
    client = EtcdClients.create(List.of(etcd.endpoints().split(",")), Duration.ofSeconds(1));
    backend = new EtcdLockBackend(client, "/contract/", Duration.ofSeconds(3), Clock.systemUTC());
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
