package dev.fencepost.lockserver.backend.etcd;

import dev.fencepost.launcher.etcd.EtcdMember;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What an etcd member says it has answered, from its own Prometheus endpoint: how tests see the
 * calls the backend makes without trusting the backend's account of them.
 */
final class EtcdServed {

  private EtcdServed() {}

  /**
   * The member's count of successfully answered calls of one gRPC method ({@code Txn}, {@code Put},
   * {@code DeleteRange}, {@code Range}) since it started; 0 for a method never called.
   */
  static long calls(EtcdMember member, String method) throws IOException, InterruptedException {
    return sum(member, "grpc_server_handled_total\\{grpc_code=\"OK\",grpc_method=\"", method);
  }

  /** Streams of one gRPC method ({@code LeaseKeepAlive}, {@code Watch}) the member has started. */
  static long streamsStarted(EtcdMember member, String method)
      throws IOException, InterruptedException {
    return sum(member, "grpc_server_started_total\\{grpc_method=\"", method);
  }

  /** Requests the member has received on streams of one gRPC method, over all its streams. */
  static long messagesReceived(EtcdMember member, String method)
      throws IOException, InterruptedException {
    return sum(member, "grpc_server_msg_received_total\\{grpc_method=\"", method);
  }

  private static long sum(EtcdMember member, String prefix, String method)
      throws IOException, InterruptedException {
    HttpResponse<String> metrics =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(member.clientUrl() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
    Matcher matcher =
        Pattern.compile(prefix + Pattern.quote(method) + "\",[^}]*} (\\S+)")
            .matcher(metrics.body());
    long total = 0;
    while (matcher.find()) {
      total += (long) Double.parseDouble(matcher.group(1));
    }
    return total;
  }
}
