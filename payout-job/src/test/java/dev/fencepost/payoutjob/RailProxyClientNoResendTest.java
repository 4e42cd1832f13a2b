package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.fencepost.lock.FencingToken;
import dev.fencepost.payment.Payout;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A submit leaves the worker once (ADR 0042, UC-05), whatever the proxy does with it: a connection
 * closed after the proxy read the request, or a 503 inviting a retry, is answered as it is, and the
 * proxy saw exactly one request.
 */
class RailProxyClientNoResendTest {

  HttpServer proxy;
  final AtomicInteger received = new AtomicInteger();

  @AfterEach
  void stop() {
    proxy.stop(0);
  }

  private void proxyAnswering(int status, String body) throws IOException {
    proxy = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    proxy.createContext(
        "/",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          received.incrementAndGet();
          if (status == 0) {
            // The request was read in full; the connection goes away without an answer.
            exchange.close();
            return;
          }
          byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.getResponseHeaders().set("Retry-After", "0");
          exchange.sendResponseHeaders(status, bytes.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
          }
        });
    proxy.start();
  }

  @Test
  void aSubmitWhoseConnectionClosedWithoutAnAnswerIsNoAnswerAndWasSentOnce() throws IOException {
    proxyAnswering(0, "");

    try (RailProxyClient client = client()) {
      assertThat(client.submit(payout(), FencingToken.of(7), "grant"))
          .isInstanceOf(RailProxyClient.NoAnswer.class);
    }
    assertThat(received).hasValue(1);
  }

  @Test
  void anOutcomeNotRecordedAnswerWithRetryAfterIsNotResent() throws IOException {
    proxyAnswering(503, "{\"code\":\"OUTCOME_NOT_RECORDED\",\"observedOutcome\":\"ACKED\"}");

    try (RailProxyClient client = client()) {
      assertThat(client.submit(payout(), FencingToken.of(7), "grant"))
          .isEqualTo(new RailProxyClient.OutcomeNotRecorded("ACKED"));
    }
    assertThat(received).hasValue(1);
  }

  private RailProxyClient client() {
    return new RailProxyClient(
        "http://127.0.0.1:" + proxy.getAddress().getPort(),
        Duration.ofSeconds(2),
        Duration.ofSeconds(5),
        Duration.ofSeconds(5),
        () -> "worker-token");
  }

  private static Payout payout() {
    return ClaimedPayouts.claimed("6f1d7f5e-3a8b-4f7e-9a51-0c7a2b9e4d11", "acc-once");
  }
}
