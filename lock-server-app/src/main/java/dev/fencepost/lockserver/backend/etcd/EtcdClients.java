package dev.fencepost.lockserver.backend.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.Constants;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/** Builds the jetcd client the etcd backend needs. */
final class EtcdClients {

  /** Long-lived streams, which carry no deadline: a watch ends with its waiting acquires. */
  private static final String WATCH_METHOD = "etcdserverpb.Watch/Watch";

  /**
   * The call jetcd makes for a token. etcd checks the password with bcrypt, which can take longer
   * than a call timeout on a busy machine: it gets the operation timeout instead.
   */
  private static final String AUTHENTICATE_METHOD = "etcdserverpb.Auth/Authenticate";

  private EtcdClients() {}

  /**
   * A client over {@code endpoints} tuned for failing fast and retrying elsewhere:
   *
   * <ul>
   *   <li>every call except a watch or a keepalive stream (whose keepalives each get one of their
   *       own) carries a gRPC deadline of {@code callTimeout}, so a call that will never be
   *       answered (it reached a follower as the leader died) ends soon and can be retried;
   *   <li>every call asks etcd to refuse it at once while the member it reached has no leader
   *       (etcd's {@code hasleader} metadata) rather than wait out the election;
   *   <li>the token request alone (with a user configured) may take up to {@code authTimeout};
   *   <li>jetcd's own retries are off: the backend retries only what is safe to repeat, within its
   *       operation timeout ({@link EtcdCalls}).
   * </ul>
   */
  static Client create(List<String> endpoints, Duration callTimeout) {
    return builder(endpoints, callTimeout, callTimeout).build();
  }

  /**
   * {@link #create(List, Duration)} with the transport and identity {@code properties} configure
   * (ADR 0158), all through jetcd's own builder:
   *
   * <ul>
   *   <li>{@code https://} endpoints: TLS (gRPC's Netty SSL context) trusting only {@code
   *       tls.ca-file}, presenting the client certificate when one is configured, verifying each
   *       endpoint's host (or {@code tls.authority}) against etcd's certificate;
   *   <li>a user: jetcd authenticates with the password, attaches etcd's token to every call and
   *       fetches a new one when etcd says it expired ({@link EtcdCalls} retries that call).
   * </ul>
   *
   * Fails at once, naming the property, when a configured file is not a readable file; a missing
   * CA, a lone certificate or a user without a password never got this far ({@link
   * EtcdBackendProperties}).
   */
  static Client create(EtcdBackendProperties properties) {
    ClientBuilder builder =
        builder(properties.endpoints(), properties.callTimeout(), properties.operationTimeout());
    EtcdBackendProperties.Tls tls = properties.tls();
    if (properties.usesTls()) {
      Path ca = readable("tls.ca-file", tls.caFile());
      Path certificate =
          tls.hasClientCertificate()
              ? readable("tls.certificate-file", tls.certificateFile())
              : null;
      Path key = tls.hasClientCertificate() ? readable("tls.key-file", tls.keyFile()) : null;
      try {
        builder.sslContext(
            ssl -> {
              ssl.trustManager(ca.toFile());
              if (certificate != null) {
                ssl.keyManager(certificate.toFile(), key.toFile());
              }
            });
      } catch (SSLException | IllegalArgumentException e) {
        throw new IllegalStateException(
            "fencepost.lock.etcd.tls.*: could not load the CA, certificate or key ("
                + e.getMessage()
                + ")",
            e);
      }
      if (tls.authority() != null) {
        builder.authority(tls.authority());
      }
    }
    if (properties.user() != null) {
      builder
          .user(ByteSequence.from(properties.user(), StandardCharsets.UTF_8))
          .password(ByteSequence.from(properties.password(), StandardCharsets.UTF_8));
    }
    return builder.build();
  }

  private static ClientBuilder builder(
      List<String> endpoints, Duration callTimeout, Duration authTimeout) {
    return Client.builder()
        .endpoints(endpoints.toArray(String[]::new))
        .connectTimeout(callTimeout)
        .retryMaxAttempts(0)
        .interceptor(failFast(callTimeout, authTimeout));
  }

  private static Path readable(String property, Path file) {
    if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
      throw new IllegalStateException(
          "fencepost.lock.etcd." + property + "=" + file + " is not a readable file");
    }
    return file;
  }

  /**
   * The streams the backend keeps open: its watches, and its keepalive streams, which apply the
   * call timeout to each keepalive themselves ({@link LeaseKeepAlives}).
   */
  private static boolean isStream(MethodDescriptor<?, ?> method) {
    String name = method.getFullMethodName();
    return WATCH_METHOD.equals(name) || LeaseKeepAlives.METHOD.equals(name);
  }

  private static ClientInterceptor failFast(Duration callTimeout, Duration authTimeout) {
    long callMillis = callTimeout.toMillis();
    long authMillis = authTimeout.toMillis();
    return new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(
          MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        CallOptions bounded =
            isStream(method) || options.getDeadline() != null
                ? options
                : options.withDeadlineAfter(
                    AUTHENTICATE_METHOD.equals(method.getFullMethodName())
                        ? authMillis
                        : callMillis,
                    TimeUnit.MILLISECONDS);
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
