package dev.fencepost.lockserver.backend.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.testsupport.etcd.EtcdClusterExtension;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** How the jetcd client the etcd backend builds sends its calls (ADR 0228). */
@Tag("FR-10")
class EtcdClientsTest {

  @RegisterExtension static EtcdClusterExtension etcd = EtcdClusterExtension.singleMember();

  @Test
  void aCallIsStartedOnTheThreadThatAsksForItNotHandedToAPoolThread() throws Exception {
    List<Thread> starters = new CopyOnWriteArrayList<>();
    ClientInterceptor recordStarter =
        new ClientInterceptor() {
          @Override
          public <Q, R> ClientCall<Q, R> interceptCall(
              MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
            starters.add(Thread.currentThread());
            return next.newCall(method, options);
          }
        };
    Duration timeout = Duration.ofSeconds(5);
    try (Client client =
        EtcdClients.builder(List.of(etcd.cluster().endpoints().split(",")), timeout, timeout)
            .interceptor(recordStarter)
            .build()) {
      ByteSequence key = ByteSequence.from("/clients-test/k", StandardCharsets.UTF_8);

      client.getKVClient().put(key, key).get(10, TimeUnit.SECONDS);
      client.getKVClient().get(key).get(10, TimeUnit.SECONDS);
      client.getLeaseClient().grant(30).get(10, TimeUnit.SECONDS);
    }

    assertThat(starters).hasSize(3).containsOnly(Thread.currentThread());
  }
}
