package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.fencepost.lock.FencingToken;
import dev.fencepost.payment.Payout;
import dev.fencepost.security.BearerTokenSource;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The worker presents its token to the proxy on every request, and without a token it sends nothing
 * at all (ADR 0147): a submit that cannot be authorised never leaves the worker.
 */
class RailProxyClientCredentialsTest {

  HttpServer proxy;
  final List<String> authorizations = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws IOException {
    proxy = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    proxy.createContext(
        "/",
        exchange -> {
          authorizations.add(
              String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
          byte[] body =
              "{\"outcome\":\"ACKED\",\"railReference\":\"R-1\"}".getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    proxy.start();
  }

  @AfterEach
  void stop() {
    proxy.stop(0);
  }

  @Test
  void everyRequestCarriesTheWorkersBearerToken() {
    RailProxyClient client = client(() -> "worker-token");

    assertThat(client.submit(payout(), FencingToken.of(7), "signed-grant"))
        .isInstanceOf(RailProxyClient.Answered.class);
    client.find(payout().id());

    assertThat(authorizations).containsExactly("Bearer worker-token", "Bearer worker-token");
  }

  @Test
  void withoutATokenNothingIsSent() {
    RailProxyClient client =
        client(
            () -> {
              throw new IllegalStateException("issuer unreachable");
            });

    assertThat(client.submit(payout(), FencingToken.of(7), "signed-grant"))
        .isEqualTo(new RailProxyClient.NothingSent("NO_CREDENTIALS"));
    assertThat(client.find(payout().id())).isInstanceOf(RailProxyClient.Unavailable.class);
    assertThat(authorizations).isEmpty();
  }

  private RailProxyClient client(BearerTokenSource tokens) {
    return new RailProxyClient(
        "http://127.0.0.1:" + proxy.getAddress().getPort(),
        Duration.ofSeconds(2),
        Duration.ofSeconds(5),
        Duration.ofSeconds(5),
        tokens);
  }

  private static Payout payout() {
    return ClaimedPayouts.claimed("6f1d7f5e-3a8b-4f7e-9a51-0c7a2b9e4d10", "acc-cred");
  }
}
