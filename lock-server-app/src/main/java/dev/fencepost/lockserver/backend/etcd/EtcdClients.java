package dev.fencepost.lockserver.backend.etcd;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.Constants;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Builds the jetcd client the etcd backend needs. */
final class EtcdClients {

  /** The one long-lived stream the backend opens; it ends when its waiting acquire does. */
  private static final String WATCH_METHOD = "etcdserverpb.Watch/Watch";

  private EtcdClients() {}

  /**
   * A client over {@code endpoints} tuned for failing fast and retrying elsewhere:
   *
   * <ul>
   *   <li>every call except a watch carries a gRPC deadline of {@code callTimeout}, so a call that
   *       will never be answered (it reached a follower as the leader died) ends soon and can be
   *       retried;
   *   <li>every call asks etcd to refuse it at once while the member it reached has no leader
   *       (etcd's {@code hasleader} metadata) rather than wait out the election;
   *   <li>jetcd's own retries are off: the backend retries only what is safe to repeat, within its
   *       operation timeout ({@link EtcdCalls}).
   * </ul>
   */
  static Client create(List<String> endpoints, Duration callTimeout) {
    return Client.builder()
        .endpoints(endpoints.toArray(String[]::new))
        .connectTimeout(callTimeout)
        .retryMaxAttempts(0)
        .interceptor(failFast(callTimeout))
        .build();
  }

  private static ClientInterceptor failFast(Duration callTimeout) {
    long millis = callTimeout.toMillis();
    return new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(
          MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        CallOptions bounded =
            WATCH_METHOD.equals(method.getFullMethodName()) || options.getDeadline() != null
                ? options
                : options.withDeadlineAfter(millis, TimeUnit.MILLISECONDS);
        return new SimpleForwardingClientCall<>(next.newCall(method, bounded)) {
          @Override
          public void start(Listener<R> listener, Metadata headers) {
            if (!headers.containsKey(Constants.REQUIRE_LEADER_KEY)) {
              headers.put(Constants.REQUIRE_LEADER_KEY, Constants.REQUIRE_LEADER_VALUE);
            }
            super.start(listener, headers);
          }
        };
      }
    };
  }
}
