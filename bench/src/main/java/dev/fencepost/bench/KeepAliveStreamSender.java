package dev.fencepost.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One session's keepalive stream (ADR 0224) as a lock client holds it: opened with the bench
 * identity's token, one text frame per keepalive answered before the next is sent, and opened again
 * with a fresh token when the server closes it because the old one expired.
 */
final class KeepAliveStreamSender implements AutoCloseable {

  /** Streams opened by every sender, the first of each included: the reconnects are in the cost. */
  static final AtomicInteger OPENED = new AtomicInteger();

  private final HttpClient http;
  private final URI uri;
  private final AtomicLong seq = new AtomicLong();
  private volatile WebSocket ws;
  private volatile boolean closed = true;
  private volatile CompletableFuture<String> pending;

  KeepAliveStreamSender(HttpClient http, String baseUrl, String sessionId) {
    this.http = http;
    this.uri =
        URI.create(
            baseUrl.replaceFirst("^http", "ws")
                + "/v1/sessions/"
                + sessionId
                + "/keepalive-stream");
  }

  /** Opens the stream if it is not open. */
  void open() throws Exception {
    if (!closed) {
      return;
    }
    WebSocket.Listener listener =
        new WebSocket.Listener() {
          private final StringBuilder partial = new StringBuilder();

          @Override
          public CompletionStage<?> onText(WebSocket socket, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
              CompletableFuture<String> p = pending;
              if (p != null) {
                p.complete(partial.toString());
              }
              partial.setLength(0);
            }
            socket.request(1);
            return null;
          }

          @Override
          public CompletionStage<?> onClose(WebSocket socket, int code, String reason) {
            fail(new IllegalStateException("stream closed: " + code + " " + reason));
            return null;
          }

          @Override
          public void onError(WebSocket socket, Throwable error) {
            fail(error);
          }

          private void fail(Throwable error) {
            closed = true;
            CompletableFuture<String> p = pending;
            if (p != null) {
              p.completeExceptionally(error);
            }
          }
        };
    ws =
        http.newWebSocketBuilder()
            .header("Authorization", BenchIdentity.authorization())
            .connectTimeout(Duration.ofSeconds(10))
            .buildAsync(uri, listener)
            .get(30, TimeUnit.SECONDS);
    closed = false;
    OPENED.incrementAndGet();
  }

  /**
   * Sends one keepalive and waits for its answer; fails unless the answer carries an expiry. A
   * stream the server closed (its token expired) is opened again and the keepalive sent once more,
   * as the starter falls back within the same heartbeat.
   */
  void keepAlive(Duration timeout) throws Exception {
    try {
      send(timeout);
    } catch (java.util.concurrent.ExecutionException e) {
      if (!closed) {
        throw e;
      }
      send(timeout);
    }
  }

  private void send(Duration timeout) throws Exception {
    open();
    long n = seq.incrementAndGet();
    CompletableFuture<String> answer = new CompletableFuture<>();
    pending = answer;
    ws.sendText(Long.toString(n), true).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    String text = answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (!text.contains("\"expiresAt\"") || !text.startsWith("{\"seq\":" + n + ",")) {
      throw new IllegalStateException("keepalive " + n + " answered " + text);
    }
  }

  @Override
  public void close() {
    WebSocket socket = ws;
    if (socket != null) {
      socket.abort();
    }
  }
}
