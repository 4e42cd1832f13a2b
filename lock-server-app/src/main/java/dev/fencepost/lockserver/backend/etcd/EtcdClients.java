package dev.fencepost.lockserver.backend.etcd;

import io.etcd.jetcd.Client;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
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
   * A client over {@code endpoints} in which every call except a watch carries a gRPC deadline of
   * {@code callTimeout}, so a call that will never be answered (sent to a follower as the leader
   * died) ends soon and can be retried, and in which jetcd's own retries are off: the backend
   * retries only what is safe to repeat, within its operation timeout ({@link EtcdCalls}).
   */
  static Client create(List<String> endpoints, Duration callTimeout) {
    return Client.builder()
        .endpoints(endpoints.toArray(String[]::new))
        .connectTimeout(callTimeout)
        .retryMaxAttempts(0)
        .interceptor(deadlines(callTimeout))
        .build();
  }

  private static ClientInterceptor deadlines(Duration callTimeout) {
    long millis = callTimeout.toMillis();
    return new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(
          MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        if (WATCH_METHOD.equals(method.getFullMethodName()) || options.getDeadline() != null) {
          return next.newCall(method, options);
        }
        return next.newCall(method, options.withDeadlineAfter(millis, TimeUnit.MILLISECONDS));
      }
    };
  }
}
