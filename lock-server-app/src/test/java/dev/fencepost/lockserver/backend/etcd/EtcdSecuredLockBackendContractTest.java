package dev.fencepost.lockserver.backend.etcd;

import dev.fencepost.lockserver.backend.LockBackend;
import dev.fencepost.lockserver.backend.LockBackendContractTest;
import dev.fencepost.testsupport.etcd.EtcdClusterExtension;
import io.etcd.jetcd.Client;
import java.time.Clock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The backend contract, unchanged, against an etcd that serves only TLS, requires a client
 * certificate and has authentication on, the backend connecting as the lock server's user whose
 * role may read and write its key prefix and nothing else (ADR 0158): the role is enough for every
 * operation of the contract.
 */
@Tag("FR-09")
class EtcdSecuredLockBackendContractTest extends LockBackendContractTest {

  private static final String PREFIX = "/secured-contract/";

  @RegisterExtension
  static EtcdClusterExtension etcd = EtcdClusterExtension.securedSingleMember(PREFIX);

  private static Client client;
  private static EtcdLockBackend backend;

  @BeforeAll
  static void start() {
    EtcdBackendProperties properties =
        EtcdSecured.properties(etcd.cluster(), PREFIX, etcd.lockServerCredentials());
    client = EtcdClients.create(properties);
    backend =
        new EtcdLockBackend(
            client,
            PREFIX,
            properties.callTimeout(),
            properties.operationTimeout(),
            Clock.systemUTC());
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
