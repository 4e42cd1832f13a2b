package dev.fencepost.lockserver.backend.etcd;

import dev.fencepost.lockserver.http.LockServerHttpContractTest;
import dev.fencepost.testsupport.etcd.EtcdClusterExtension;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The v1 HTTP contract, unchanged, with the lock server selecting the etcd backend purely by
 * configuration (FR-09) and starting without any database.
 */
@Tag("FR-09")
class EtcdLockServerHttpContractTest extends LockServerHttpContractTest {

  @RegisterExtension static EtcdClusterExtension etcd = EtcdClusterExtension.singleMember();

  @Override
  protected Map<String, Object> backendProperties() {
    return Map.of(
        "fencepost.lock.backend", "etcd",
        "fencepost.lock.etcd.endpoints", etcd.endpoints(),
        "fencepost.lock.etcd.key-prefix", "/http-contract/");
  }
}
