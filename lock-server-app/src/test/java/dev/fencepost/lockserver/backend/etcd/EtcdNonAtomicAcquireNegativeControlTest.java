package dev.fencepost.lockserver.backend.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockNotAcquiredException;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lockserver.backend.AcquireOverridingBackend;
import dev.fencepost.lockserver.backend.LockBackend;
import dev.fencepost.testsupport.etcd.EtcdClusterExtension;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The negative control for the failover tests' checks (NFR-07): the same clients and the same
 * {@code GrantHistory} checks, against a deliberately broken acquire that reads the key and then
 * puts it without a compare. The checks must catch it; if this test ever passes with no overlap,
 * the leader-kill and leader-pause tests prove nothing.
 */
@Tag("NFR-07")
@Tag("INV-06")
class EtcdNonAtomicAcquireNegativeControlTest {

  private static final String PREFIX = "/negative-control/";

  @RegisterExtension static EtcdClusterExtension etcd = EtcdClusterExtension.singleMember();

  @Test
  void anAcquireWithoutCompareAndSwapIsCaughtAsOverlappingGrants() throws Exception {
    try (Client client = EtcdFailover.client(etcd.cluster())) {
      LockBackend broken =
          new NonAtomicAcquire(EtcdFailover.backend(client, PREFIX), client, PREFIX);
      EtcdLockWorkload workload = new EtcdLockWorkload(broken, 8, 1);
      workload.start();
      try {
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(500))
            .until(() -> !workload.history().overlaps().isEmpty());
      } finally {
        workload.stopAndJoin(Duration.ofSeconds(30));
      }

      assertThat(workload.history().overlaps()).isNotEmpty();
    }
  }

  /** The real backend, except that acquire is a read followed by an unconditional put. */
  private static final class NonAtomicAcquire extends AcquireOverridingBackend {
    private final Client client;
    private final String prefix;

    NonAtomicAcquire(EtcdLockBackend real, Client client, String prefix) {
      super(real);
      this.client = client;
      this.prefix = prefix;
    }

    @Override
    public LockGrant acquire(LockKey key, SessionId sessionId, Duration wait) {
      ByteSequence lockKey = ByteSequence.from(prefix + "locks/" + key, StandardCharsets.UTF_8);
      long lease = EtcdKeys.leaseId(sessionId).orElseThrow();
      try {
        if (client.getKVClient().get(lockKey).get(5, TimeUnit.SECONDS).getCount() > 0) {
          throw new LockNotAcquiredException(key);
        }
        // BROKEN ON PURPOSE: another client may have put the key since the read.
        long revision =
            client
                .getKVClient()
                .put(
                    lockKey,
                    EtcdValues.write(
                        new EtcdValues.Grant("w", sessionId.value(), Instant.now().toString())),
                    PutOption.builder().withLeaseId(lease).build())
                .get(5, TimeUnit.SECONDS)
                .getHeader()
                .getRevision();
        Instant now = Instant.now();
        return new LockGrant(
            key, "w", sessionId, new FencingToken(revision), now, now.plusSeconds(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
