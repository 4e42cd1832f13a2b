package dev.fencepost.lock.client.impl;

import dev.fencepost.lock.SessionId;
import dev.fencepost.lock.SessionInfo;
import dev.fencepost.lock.SessionNotFoundException;
import dev.fencepost.security.BearerTokenSource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The session's keepalive stream (ADR 0224): one WebSocket to the lock server, opened with the
 * caller's token, carrying one text frame per heartbeat (a sequence number) and its answer (the
 * session's new expiry). Used by the heartbeat thread only.
 *
 * <p>The stream is an optimisation of the keepalive request, never a new way to fail: whenever it
 * cannot serve a heartbeat at once (it cannot be opened, the server closed it, a frame cannot be
 * sent, the answer is not one) {@link #keepAlive} returns empty and the heartbeat sends the
 * keepalive as a request, as it always did. A server without the stream refuses the upgrade, and
 * the client tries again only after a backoff growing to {@link #MAX_OPEN_BACKOFF}. Two answers are
 * final and not retried as a request: the session is gone ({@link SessionNotFoundException}), and
 * no answer within the read timeout ({@link LockServerUnreachableException}, as a request that
 * timed out); the stream is then dropped and opened again on the next heartbeat.
 *
 * <p>A heartbeat never waits for a stream to open (ADR 0230): it starts the opening and sends its
 * keepalive as a request, and a later heartbeat takes the stream once it is open. The JDK client
 * completes an opening on the JVM's common fork-join pool, which on Java 25 has one thread on a
 * machine of two CPUs or fewer; work of the application blocked there must not hold heartbeats
 * back. An opening still not done after the connect and read timeouts is given up and counted as a
 * refusal.
 *
 * <p>The JDK's WebSocket client (Apache HttpClient 5, the platform's client stack, has none), with
 * the connect timeout of the settings, no proxy, and TLS with the JVM's default {@link SSLContext}
 * as it is when the stream opens (ADR 0150), the host name verified.
 */
final class KeepAliveStream implements AutoCloseable {

  /** The longest wait before trying to open a stream again after the server refused one. */
  static final Duration MAX_OPEN_BACKOFF = Duration.ofMinutes(5);

  private static final Duration FIRST_OPEN_BACKOFF = Duration.ofSeconds(15);
  private static final Logger log = LoggerFactory.getLogger(KeepAliveStream.class);
  private static final JsonMapper JSON =
      JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

  private final String base;
  private final Duration connectTimeout;
  private final Duration readTimeout;
  private final BearerTokenSource tokens;

  private HttpClient http;
  private SSLContext httpTls;
  private WebSocket ws;
  private CompletableFuture<WebSocket> opening;
  private SessionId openingSession;
  private long openingStartedNanos;
  private SessionId wsSession;
  private volatile boolean wsClosed = true;
  private volatile CompletableFuture<String> pending;
  private long seq;
  private int refusedOpens;
  private long nextOpenNanos = System.nanoTime();

  KeepAliveStream(LockClientSettings settings) {
    String url = settings.baseUrl().toString();
    url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    this.base = "ws" + url.substring("http".length());
    this.connectTimeout = settings.connectTimeout();
    this.readTimeout = settings.readTimeout();
    this.tokens = settings.tokens();
  }

  /**
   * One keepalive of {@code session} over its stream; with no stream open, starts opening one and
   * returns empty.
   *
   * @return the session as the answer gives it, or empty if the stream cannot serve this keepalive
   *     now (send it as a request)
   * @throws SessionNotFoundException when the server answers that the session is gone
   * @throws LockServerUnreachableException when no answer came within the read timeout, or the
   *     server answered that its store is unavailable
   */
  synchronized Optional<SessionInfo> keepAlive(SessionId session) {
    if (!session.equals(wsSession) || wsClosed) {
      drop();
      if (!opened(session)) {
        return Optional.empty();
      }
    }
    long n = ++seq;
    CompletableFuture<String> answer = new CompletableFuture<>();
    pending = answer;
    String text;
    try {
      ws.sendText(Long.toString(n), true).get(readTimeout.toNanos(), TimeUnit.NANOSECONDS);
      text = answer.get(readTimeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      drop();
      throw new LockServerUnreachableException(
          "no keepalive answer on the stream within " + readTimeout, e);
    } catch (ExecutionException e) {
      // Closed under us (its token expired, the server is stopping): send it as a request.
      drop();
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      drop();
      throw new LockServerUnreachableException("interrupted waiting for a keepalive answer", e);
    }
    return Optional.ofNullable(answer(session, n, text));
  }

  /** The session from the answer, null if it is not an answer to keepalive {@code n}. */
  private SessionInfo answer(SessionId session, long n, String text) {
    Answer a;
    try {
      a = JSON.readValue(text, Answer.class);
    } catch (JacksonException e) {
      a = null;
    }
    if (a == null || a.seq() == null || a.seq() != n) {
      malformed(text);
      return null;
    }
    if ("SESSION_NOT_FOUND".equals(a.code())) {
      drop();
      throw new SessionNotFoundException(session);
    }
    if ("BACKEND_UNAVAILABLE".equals(a.code())) {
      throw new LockServerUnreachableException(
          "lock server: BACKEND_UNAVAILABLE " + (a.detail() == null ? "" : a.detail()), null);
    }
    if (a.code() != null
        || !session.value().equals(a.sessionId())
        || a.ttlMillis() == null
        || a.expiresAt() == null) {
      malformed(text);
      return null;
    }
    return new SessionInfo(
        session,
        a.owner() == null ? "" : a.owner(),
        Duration.ofMillis(a.ttlMillis()),
        a.expiresAt());
  }

  private void malformed(String text) {
    log.atWarn()
        .addKeyValue("event", "lock.keepalive_stream.malformed_answer")
        .addKeyValue("chars", text.length())
        .log("keepalive stream answered something that is not an answer; sending a request");
    drop();
  }

  /**
   * True once a stream of {@code session} is open and taken as the current one. Otherwise false,
   * having started an opening if none is under way and the backoff after a refusal has run out, or
   * having given up one that took longer than the connect and read timeouts.
   */
  private boolean opened(SessionId session) {
    CompletableFuture<WebSocket> o = opening;
    if (o != null && !session.equals(openingSession)) {
      abandonOpening();
      o = null;
    }
    if (o == null) {
      if (System.nanoTime() - nextOpenNanos >= 0) {
        startOpening(session);
      }
      return false;
    }
    if (!o.isDone()) {
      if (System.nanoTime() - openingStartedNanos < connectTimeout.plus(readTimeout).toNanos()) {
        return false;
      }
      abandonOpening();
      refused(new TimeoutException("not open within " + connectTimeout.plus(readTimeout)));
      return false;
    }
    opening = null;
    WebSocket opened;
    try {
      opened = o.join();
    } catch (CompletionException e) {
      refused(e);
      return false;
    }
    if (opened.isInputClosed() || opened.isOutputClosed()) {
      // Closed by the server after it opened and before a heartbeat took it.
      opened.abort();
      refused(new IllegalStateException("stream closed before its first keepalive"));
      return false;
    }
    ws = opened;
    wsSession = session;
    wsClosed = false;
    if (refusedOpens > 0) {
      log.atInfo()
          .addKeyValue("event", "lock.keepalive_stream.opened")
          .addKeyValue("afterRefusals", refusedOpens)
          .log("keepalive stream open again after {} refusal(s)", refusedOpens);
    }
    refusedOpens = 0;
    return true;
  }

  private void startOpening(SessionId session) {
    try {
      WebSocket.Builder builder = client().newWebSocketBuilder().connectTimeout(connectTimeout);
      if (tokens != null) {
        builder.header("Authorization", "Bearer " + tokens.currentToken());
      }
      URI uri = URI.create(base + "/v1/sessions/" + session.value() + "/keepalive-stream");
      opening = builder.buildAsync(uri, new Listener());
      openingSession = session;
      openingStartedNanos = System.nanoTime();
    } catch (RuntimeException | NoSuchAlgorithmException e) {
      refused(e);
    }
  }

  /** Forgets the opening under way; a stream it still opens is closed as soon as it is open. */
  private void abandonOpening() {
    CompletableFuture<WebSocket> o = opening;
    opening = null;
    openingSession = null;
    if (o != null) {
      o.thenAccept(WebSocket::abort);
    }
  }

  /** An opening that failed: keepalives go as requests until a backoff that grows runs out. */
  private void refused(Throwable e) {
    refusedOpens++;
    Duration backoff = FIRST_OPEN_BACKOFF.multipliedBy(1L << Math.min(refusedOpens - 1, 10));
    if (backoff.compareTo(MAX_OPEN_BACKOFF) > 0) {
      backoff = MAX_OPEN_BACKOFF;
    }
    nextOpenNanos = System.nanoTime() + backoff.toNanos();
    log.atInfo()
        .addKeyValue("event", "lock.keepalive_stream.unavailable")
        .addKeyValue("refusals", refusedOpens)
        .addKeyValue("retryInMillis", backoff.toMillis())
        .addKeyValue("error", LockServerHttp.rootMessage(e))
        .log("keepalive stream not available; keepalives go as requests");
  }

  private HttpClient client() throws NoSuchAlgorithmException {
    SSLContext current = SSLContext.getDefault();
    if (http == null || current != httpTls) {
      http =
          HttpClient.newBuilder()
              .connectTimeout(connectTimeout)
              .proxy(HttpClient.Builder.NO_PROXY)
              .followRedirects(HttpClient.Redirect.NEVER)
              .sslContext(current)
              .build();
      httpTls = current;
    }
    return http;
  }

  /** Drops the stream without waiting for the server: the next keepalive opens a new one. */
  private void drop() {
    wsClosed = true;
    WebSocket current = ws;
    ws = null;
    wsSession = null;
    if (current != null) {
      current.abort();
    }
  }

  @Override
  public synchronized void close() {
    abandonOpening();
    WebSocket current = ws;
    if (current != null && !wsClosed) {
      // A polite close; the connection is aborted if the server does not answer it.
      current.sendClose(WebSocket.NORMAL_CLOSURE, "client stopped");
    }
    wsClosed = true;
    ws = null;
    wsSession = null;
    http = null;
  }

  private final class Listener implements WebSocket.Listener {
    private final StringBuilder partial = new StringBuilder();

    @Override
    public CompletionStage<?> onText(WebSocket socket, CharSequence data, boolean last) {
      if (socket != ws) {
        return null;
      }
      partial.append(data);
      if (partial.length() > 4096) {
        // Answers are about 150 characters: this is not one.
        fail(socket, new IllegalStateException("answer over 4096 characters"));
        socket.abort();
        return null;
      }
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
      fail(
          socket, new IllegalStateException("stream closed by the server: " + code + " " + reason));
      return null;
    }

    @Override
    public void onError(WebSocket socket, Throwable error) {
      fail(socket, error);
    }

    private void fail(WebSocket socket, Throwable error) {
      if (socket == ws) {
        wsClosed = true;
      }
      CompletableFuture<String> p = pending;
      if (p != null) {
        p.completeExceptionally(error);
      }
    }
  }

  record Answer(
      Long seq,
      String sessionId,
      String owner,
      Long ttlMillis,
      Instant expiresAt,
      String code,
      String detail) {}
}
