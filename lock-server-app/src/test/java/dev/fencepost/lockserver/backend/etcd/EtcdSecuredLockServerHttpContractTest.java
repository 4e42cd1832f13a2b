package dev.fencepost.lockserver.backend.etcd;

import dev.fencepost.lockserver.http.LockServerHttpContractTest;
import dev.fencepost.testsupport.etcd.EtcdClusterExtension;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The v1 HTTP contract, unchanged, with the lock server configured only by its properties to reach
 * etcd over TLS with a client certificate and as its own etcd user (ADR 0158).
 */
@Tag("FR-09")
class EtcdSecuredLockServerHttpContractTest extends LockServerHttpContractTest {

  private static final String PREFIX = "/secured-http-contract/";

  @RegisterExtension
  static EtcdClusterExtension etcd = EtcdClusterExtension.securedSingleMember(PREFIX);

  @Override
  protected Map<String, Object> backendProperties() {
    return EtcdSecured.springProperties(etcd.cluster(), PREFIX, etcd.lockServerCredentials());
  }
}
