package dev.fencepost.lockserver.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lock.SessionInfo;
import dev.fencepost.lock.SessionNotFoundException;
import dev.fencepost.lockserver.backend.BackendUnavailableException;
import dev.fencepost.lockserver.config.LockServerProperties;
import dev.fencepost.lockserver.http.LockApiModels.SessionResponse;
import dev.fencepost.lockserver.service.LockService;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.ServletContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.websocket.CloseReason;
import jakarta.websocket.Endpoint;
import jakarta.websocket.EndpointConfig;
import jakarta.websocket.MessageHandler;
import jakarta.websocket.Session;
import jakarta.websocket.server.ServerContainer;
import jakarta.websocket.server.ServerEndpointConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/**
 * Keepalives over one WebSocket per session (ADR 0224, docs/lock-server.md): the client opens
 * {@code GET /v1/sessions/{id}/keepalive-stream} once, authenticated and checked for ownership like
 * any session call, then sends each keepalive as a text frame holding its sequence number and reads
 * the session's new expiry in the answer. A keepalive then costs a frame each way instead of an
 * authenticated HTTP request, which is most of what a keepalive cost the server.
 *
 * <p>What the handshake proved holds only as long as the token that proved it: the stream is closed
 * ({@value #TOKEN_EXPIRED}) when the token expires, and the client opens a new one with a fresh
 * token. A stream silent for its session's TTL is closed too: it keeps no session alive. Anything
 * but a sequence number of 1 to 18 digits closes the stream ({@code 1003}, or {@code 1009} for a
 * frame over {@value #MAX_FRAME_CHARS} characters) and keeps nothing alive.
 *
 * <p>A stream holds a connection and its buffers (about 83 KB of heap, ADRs 0224 and 0226), so a
 * session has one stream at most (a newer one replaces it, {@value #REPLACED}) and an instance at
 * most {@code fencepost.lock.max-keepalive-streams}; beyond that the upgrade is a 429 and the
 * client sends its keepalives as requests.
 */
@Component
final class KeepAliveStreams implements DisposableBean {

  /** Close code: the token the stream was opened with has expired; open a new one. */
  static final int TOKEN_EXPIRED = 4401;

  /** Close code: the session is gone (expired or closed); the answer said SESSION_NOT_FOUND. */
  static final int SESSION_NOT_FOUND = 4404;

  /** Close code: the session opened a newer stream, which replaces this one. */
  static final int REPLACED = 4409;

  /**
   * The longest an answer's write may wait for a client to read: a write waits only once the
   * connection's socket buffers are full, which a client that reads its answers never lets happen.
   */
  static final Duration ANSWER_SEND_TIMEOUT = Duration.ofSeconds(2);

  /** Tomcat's per-session property for the timeout of a blocking send, in milliseconds (a Long). */
  static final String BLOCKING_SEND_TIMEOUT = "org.apache.tomcat.websocket.BLOCKING_SEND_TIMEOUT";

  /** A keepalive frame is a sequence number: 18 digits at most, so anything longer is not one. */
  static final int MAX_FRAME_CHARS = 32;

  private static final Logger log = LoggerFactory.getLogger(KeepAliveStreams.class);

  private final LockService service;
  private final Duration maxTtl;
  private final JsonMapper json;
  private final ScheduledThreadPoolExecutor expiries = expiryTimer();
  private final int maxStreams;
  private final AtomicInteger open = new AtomicInteger();
  private final Map<SessionId, Stream> bySession = new ConcurrentHashMap<>();
  private final Counter opened;
  private final int frameBufferBytes;

  KeepAliveStreams(
      LockService service,
      LockServerProperties properties,
      MeterRegistry meters,
      JsonMapper json,
      ServletContext servletContext) {
    this.service = service;
    this.maxTtl = properties.maxTtl();
    this.maxStreams = properties.maxKeepaliveStreams();
    // The application's mapper: an answer's fields are written as the keepalive request's are.
    this.json = json;
    Gauge.builder("fencepost.lock.keepalive.streams", open, AtomicInteger::get)
        .description("Keepalive streams open on this server")
        .register(meters);
    this.opened =
        Counter.builder("fencepost.lock.keepalive.streams.opened")
            .description(
                "Keepalive streams opened on this server; each client opens one again when its"
                    + " token expires")
            .register(meters);
    this.frameBufferBytes =
        sizeBuffers((ServerContainer) servletContext.getAttribute(ServerContainer.class.getName()));
  }

  /**
   * Sizes the message buffers the container gives each stream when it upgrades, before onOpen
   * could: 8 KiB of characters and 8 KiB of bytes by default, for frames of a few characters. This
   * server serves no other WebSocket. Returns the bytes of each buffer Tomcat gives every
   * connection whatever it carries (ADR 0226), or -1 without a container.
   */
  private static int sizeBuffers(ServerContainer container) {
    if (container == null) {
      return -1;
    }
    // The container's defaults start at the size Tomcat gives each connection's frame buffers,
    // which has no getter of its own: read before they are changed below.
    int frameBuffer = container.getDefaultMaxTextMessageBufferSize();
    container.setDefaultMaxTextMessageBufferSize(MAX_FRAME_CHARS);
    container.setDefaultMaxBinaryMessageBufferSize(MAX_FRAME_CHARS);
    log.atInfo()
        .addKeyValue("event", "lock.keepalive_stream.buffers_sized")
        .addKeyValue("frameBufferBytes", frameBuffer)
        .addKeyValue("messageBufferChars", MAX_FRAME_CHARS)
        .log(
            "keepalive streams: {} bytes per frame buffer (three per stream), {} characters per"
                + " message",
            frameBuffer,
            MAX_FRAME_CHARS);
    return frameBuffer;
  }

  /**
   * The bytes of each frame buffer Tomcat gives a stream, as it was when the server started: the
   * JVM's {@code org.apache.tomcat.websocket.DEFAULT_BUFFER_SIZE}; -1 without WebSocket support.
   */
  int frameBufferBytes() {
    return frameBufferBytes;
  }

  /**
   * Upgrades this request to a keepalive stream for {@code session}, whose owner the caller has
   * been checked to be. The connection outlives the request, not the caller's token.
   */
  void open(
      HttpServletRequest request,
      HttpServletResponse response,
      SessionId session,
      String principal,
      Instant tokenExpiresAt)
      throws IOException {
    ServerContainer container =
        (ServerContainer) request.getServletContext().getAttribute(ServerContainer.class.getName());
    if (container == null) {
      throw new IllegalStateException("the servlet container offers no WebSocket support");
    }
    if (open.get() >= maxStreams) {
      // Checked before the upgrade, so upgrades in flight may overshoot it by a few.
      throw service.keepaliveStreamsFull(session);
    }
    Stream stream = new Stream(session, principal, tokenExpiresAt);
    ServerEndpointConfig config =
        ServerEndpointConfig.Builder.create(Stream.class, request.getRequestURI())
            .configurator(
                new ServerEndpointConfig.Configurator() {
                  @Override
                  public <T> T getEndpointInstance(Class<T> type) {
                    return type.cast(stream);
                  }
                })
            .build();
    try {
      container.upgradeHttpToWebSocket(request, response, config, Map.of());
    } catch (jakarta.websocket.DeploymentException e) {
      throw new IllegalStateException("could not open the keepalive stream", e);
    }
  }

  /**
   * The one thread that closes streams whose token expired. A stream that closes first cancels its
   * expiry, and a cancelled expiry leaves the queue at once instead of at the token's expiry: a
   * client that reconnects every few minutes would otherwise leave one behind each time.
   */
  private static ScheduledThreadPoolExecutor expiryTimer() {
    ScheduledThreadPoolExecutor timer =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "fencepost-keepalive-stream-expiry");
              t.setDaemon(true);
              return t;
            });
    timer.setRemoveOnCancelPolicy(true);
    return timer;
  }

  /** Token expiries scheduled and not yet run or cancelled: one per open stream at most. */
  int scheduledExpiries() {
    return expiries.getQueue().size();
  }

  @Override
  public void destroy() {
    expiries.shutdownNow();
  }

  /**
   * One session's stream: every frame is read on the connection's own container thread and handed
   * to the backend, and its answer written by the thread the backend finishes on (ADR 0229).
   */
  final class Stream extends Endpoint implements MessageHandler.Whole<String> {

    private final SessionId sessionId;
    private final String principal;
    private final Instant tokenExpiresAt;
    private Session ws;
    private ScheduledFuture<?> expiry;
    private volatile CompletableFuture<Void> inFlight;

    Stream(SessionId sessionId, String principal, Instant tokenExpiresAt) {
      this.sessionId = sessionId;
      this.principal = principal;
      this.tokenExpiresAt = tokenExpiresAt;
    }

    @Override
    public void onOpen(Session session, EndpointConfig config) {
      this.ws = session;
      session.addMessageHandler(String.class, this);
      // Without a handler of its own the container would drop binary frames silently.
      session.addMessageHandler(ByteBuffer.class, binary -> reject("a binary frame"));
      // Until the first keepalive says the session's TTL, the longest any session may have.
      session.setMaxIdleTimeout(maxTtl.toMillis());
      // Answers are written by the thread that ran their statement, which then writes the rest of
      // its batch's: a client that stopped reading may hold that thread only this long, after which
      // Tomcat closes its stream (ADR 0229). The property is Tomcat's, read on every blocking send.
      session.getUserProperties().put(BLOCKING_SEND_TIMEOUT, ANSWER_SEND_TIMEOUT.toMillis());
      open.incrementAndGet();
      opened.increment();
      // One stream per session: a client that reconnects before the server noticed its old
      // connection die replaces it, and no session can hold more than one stream's memory.
      Stream previous = bySession.put(sessionId, this);
      if (previous != null) {
        previous.close(REPLACED, "replaced by a newer stream of the session");
      }
      if (tokenExpiresAt != null) {
        expiry =
            expiries.schedule(
                () -> close(TOKEN_EXPIRED, "token expired"),
                Math.max(0, Duration.between(Instant.now(), tokenExpiresAt).toMillis()),
                TimeUnit.MILLISECONDS);
      }
      log.atDebug()
          .addKeyValue("event", "lock.session.keepalive_stream_opened")
          .addKeyValue("sessionId", sessionId.value())
          .addKeyValue("principal", principal)
          .addKeyValue("tokenExpiresAt", tokenExpiresAt)
          .log("keepalive stream opened");
    }

    @Override
    public void onMessage(String frame) {
      long seq = sequence(frame);
      if (seq < 0) {
        reject("a text frame of " + frame.length() + " characters");
        return;
      }
      // One keepalive of a stream at a time: a client that sends before its answer came waits
      // here, on the connection's thread, as it did when every frame was answered on it.
      CompletableFuture<Void> previous = inFlight;
      if (previous != null && !previous.isDone()) {
        try {
          previous.join();
        } catch (CompletionException | CancellationException e) {
          // Its answer failed: the stream is closing, or the failure was logged where it happened.
        }
      }
      inFlight =
          service.keepAliveAsync(sessionId).handle((info, thrown) -> answer(seq, info, thrown));
    }

    /** Answers keepalive {@code seq} on whichever thread its backend finished on. */
    private Void answer(long seq, SessionInfo info, Throwable thrown) {
      RuntimeException failure = LockService.unwrap(thrown);
      if (failure == null) {
        // A stream silent for its session's TTL is keeping nothing alive.
        ws.setMaxIdleTimeout(Math.max(1_000, info.ttl().toMillis()));
        send(Answer.of(seq, info));
      } else if (failure instanceof SessionNotFoundException e) {
        send(Answer.refused(seq, e.code(), e.getMessage()));
        close(SESSION_NOT_FOUND, "session not found");
      } else if (failure instanceof BackendUnavailableException e) {
        // The store is down, not the session: the client tries again on its next heartbeat.
        send(Answer.refused(seq, "BACKEND_UNAVAILABLE", e.getMessage()));
      } else {
        log.atError()
            .addKeyValue("event", "lock.session.keepalive_stream_failed")
            .addKeyValue("sessionId", sessionId.value())
            .setCause(failure)
            .log("keepalive stream closed: unexpected failure");
        close(CloseReason.CloseCodes.UNEXPECTED_CONDITION.getCode(), "internal error");
      }
      return null;
    }

    private void reject(String what) {
      log.atWarn()
          .addKeyValue("event", "lock.session.keepalive_stream_rejected")
          .addKeyValue("sessionId", sessionId.value())
          .addKeyValue("principal", principal)
          .log("keepalive stream closed: {} is not a keepalive sequence number", what);
      close(CloseReason.CloseCodes.CANNOT_ACCEPT.getCode(), "not a keepalive sequence number");
    }

    @Override
    public void onClose(Session session, CloseReason reason) {
      open.decrementAndGet();
      bySession.remove(sessionId, this);
      if (expiry != null) {
        expiry.cancel(false);
      }
      log.atDebug()
          .addKeyValue("event", "lock.session.keepalive_stream_closed")
          .addKeyValue("sessionId", sessionId.value())
          .addKeyValue("closeCode", reason.getCloseCode().getCode())
          .log("keepalive stream closed: {}", reason.getReasonPhrase());
    }

    @Override
    public void onError(Session session, Throwable thr) {
      // A peer that vanished or a frame over the limit: the container closes the stream.
      log.atDebug()
          .addKeyValue("event", "lock.session.keepalive_stream_error")
          .addKeyValue("sessionId", sessionId.value())
          .log("keepalive stream error: {}", thr.toString());
    }

    private synchronized void send(Answer answer) {
      try {
        ws.getBasicRemote().sendText(json.writeValueAsString(answer));
      } catch (IOException | IllegalStateException e) {
        // Closed under us (token expiry, the peer): the client learns it from the close.
      }
    }

    private synchronized void close(int code, String reason) {
      try {
        if (ws.isOpen()) {
          ws.close(new CloseReason(CloseReason.CloseCodes.getCloseCode(code), reason));
        }
      } catch (IOException | IllegalStateException e) {
        // Already closing.
      }
    }
  }

  /**
   * The answer to keepalive {@code seq}: the session's fields exactly as the keepalive request's
   * body has them (the same record, unwrapped), or the refusal's {@code code} and {@code detail}.
   * Absent fields are left out.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Answer(long seq, @JsonUnwrapped SessionResponse session, String code, String detail) {

    static Answer of(long seq, SessionInfo info) {
      return new Answer(seq, SessionResponse.of(info), null, null);
    }

    static Answer refused(long seq, String code, String detail) {
      return new Answer(seq, null, code, detail);
    }
  }

  /** The frame's sequence number, or -1 unless it is 1 to 18 ASCII digits. */
  static long sequence(String frame) {
    int n = frame.length();
    if (n == 0 || n > 18) {
      return -1;
    }
    long value = 0;
    for (int i = 0; i < n; i++) {
      char c = frame.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }
}
