package dev.fencepost.lock.client.impl;

import dev.fencepost.http.OutboundHttp;
import dev.fencepost.lock.FencingToken;
import dev.fencepost.lock.InvalidLockKeyException;
import dev.fencepost.lock.LockException;
import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.LockNotAcquiredException;
import dev.fencepost.lock.LockServiceUnavailableException;
import dev.fencepost.lock.NotHolderException;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lock.SessionInfo;
import dev.fencepost.lock.SessionNotFoundException;
import dev.fencepost.lock.client.LockRequestRejectedException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.converter.json.JacksonJsonHttpMessageConverter;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The lock server's HTTP contract v1 (docs/lock-server.md), as blocking calls that map every answer
 * to a result or to the contract's exception: {@code SESSION_NOT_FOUND}, {@code LOCK_HELD}, {@code
 * LOCK_LOST}, {@code NOT_HOLDER}, {@code INVALID_KEY}. Transport failures and 502/503/504 become
 * {@link LockServerUnreachableException}, the one retryable failure; any other 4xx is {@link
 * LockRequestRejectedException} and any other 5xx {@link LockServiceUnavailableException}.
 *
 * <p>Spring's {@link RestClient} over the platform's one client stack ({@link OutboundHttp}, ADR
 * 0197: Apache HttpClient 5 classic, which reads the answer on the caller's thread): kept-alive
 * connections with TCP_NODELAY (an idle one is kept past the next heartbeat, {@link #idleFor}), an
 * explicit connect timeout, a response timeout per request that bounds the whole answer (the
 * configured read timeout, plus the server-side wait for acquire), answers bounded in size (1 MiB
 * body; the head in lines and their length), no proxy, no redirects, no compression. A request is
 * never re-sent by the transport: HttpClient's automatic retries are disabled, so any I/O failure,
 * including a kept-alive connection the server had already closed, surfaces as unreachable and is
 * the caller's to retry. Over {@code https} with the JVM's default trust and host name verification
 * (ADR 0150). The client's own JSON mapper is used, never the application's, and it ignores fields
 * added to the contract later.
 */
final class LockServerHttp {

  private static final int MAX_CACHED_ACQUIRE_CLIENTS = 8;

  /** An idle connection is kept at least as long as any other client of the platform keeps one. */
  static final Duration MIN_IDLE = Duration.ofSeconds(4);

  /**
   * Half the lock server's keep-alive timeout (60 s), so that the server is never first to close.
   */
  static final Duration MAX_IDLE = Duration.ofSeconds(30);

  /** The lock server's answers are a few hundred bytes; anything near this is not one. */
  static final long MAX_RESPONSE_BYTES = 1 << 20;

  private final OutboundHttp http;
  private final RestClient.Builder builder;
  private final RestClient client;
  private final Duration readTimeout;
  private final Map<Duration, RestClient> acquireClients = new ConcurrentHashMap<>();

  LockServerHttp(LockClientSettings settings) {
    this.readTimeout = settings.readTimeout();
    this.http =
        OutboundHttp.builder()
            .connectTimeout(settings.connectTimeout())
            .responseTimeout(settings.readTimeout())
            .idleFor(idleFor(settings.heartbeatInterval()))
            .maxResponseBytes(MAX_RESPONSE_BYTES)
            .build();
    JsonMapper mapper =
        JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
    String base = settings.baseUrl().toString();
    this.builder =
        RestClient.builder()
            .baseUrl(base.endsWith("/") ? base.substring(0, base.length() - 1) : base)
            .messageConverters(List.of(new JacksonJsonHttpMessageConverter(mapper)))
            .defaultHeader("Accept", "application/json, application/problem+json");
    if (settings.tokens() != null) {
      // Every call, heartbeats included, carries the caller's identity (docs/security.md); the
      // source caches the token, so this costs nothing per request until it is renewed.
      builder.requestInterceptor(settings.tokens().interceptor());
    }
    this.client = withResponseTimeout(readTimeout);
  }

  /**
   * How long an idle connection is kept: one heartbeat interval and a second more (ADR 0225). A
   * client whose only calls are its heartbeats (keepalives, when it has no stream; renews of the
   * locks it holds) then sends each on the connection the previous one used. Kept for the usual 4
   * s, the connection was gone by each heartbeat at the default 5-s interval, and every heartbeat
   * paid a new TLS connection: 1.4 ms of the server's CPU against 0.21 ms on a kept one, measured.
   * Bounded by {@link #MIN_IDLE} and {@link #MAX_IDLE}.
   */
  static Duration idleFor(Duration heartbeatInterval) {
    Duration wanted = heartbeatInterval.plusSeconds(1);
    if (wanted.compareTo(MIN_IDLE) < 0) {
      return MIN_IDLE;
    }
    return wanted.compareTo(MAX_IDLE) > 0 ? MAX_IDLE : wanted;
  }

  /** How long this client keeps an idle connection ({@link #idleFor(Duration)}). */
  Duration connectionIdleFor() {
    return http.idleFor();
  }

  SessionInfo createSession(String owner, Duration ttl) {
    SessionBody body =
        exchange(
            client
                .post()
                .uri("/v1/sessions")
                .contentType(MediaType.APPLICATION_JSON)
                .body(new CreateSessionBody(owner, ttl.toMillis())),
            SessionBody.class,
            problem -> null);
    return body.toInfo();
  }

  SessionInfo keepAlive(SessionId sessionId) {
    SessionBody body =
        exchange(
            client.post().uri("/v1/sessions/{id}/keepalive", sessionId.value()),
            SessionBody.class,
            problem ->
                "SESSION_NOT_FOUND".equals(problem.code())
                    ? new SessionNotFoundException(sessionId)
                    : null);
    return body.toInfo();
  }

  void closeSession(SessionId sessionId) {
    exchange(
        client.delete().uri("/v1/sessions/{id}", sessionId.value()), Void.class, problem -> null);
  }

  LockGrant acquire(LockKey key, SessionId sessionId, Duration wait) {
    RestClient acquireClient = acquireClient(wait);
    GrantBody body =
        exchange(
            acquireClient
                .post()
                .uri("/v1/locks/{key}/acquire", key.value())
                .contentType(MediaType.APPLICATION_JSON)
                .body(new AcquireBody(sessionId.value(), wait.toMillis())),
            GrantBody.class,
            problem ->
                switch (String.valueOf(problem.code())) {
                  case "LOCK_HELD" -> new LockNotAcquiredException(key);
                  case "SESSION_NOT_FOUND" -> new SessionNotFoundException(sessionId);
                  case "INVALID_KEY" -> new InvalidLockKeyException(key.value());
                  default -> null;
                });
    return body.toGrant();
  }

  LockGrant renew(LockKey key, SessionId sessionId, FencingToken token) {
    GrantBody body =
        exchange(
            client
                .post()
                .uri("/v1/locks/{key}/renew", key.value())
                .contentType(MediaType.APPLICATION_JSON)
                .body(new TokenBody(sessionId.value(), token.value())),
            GrantBody.class,
            problem ->
                switch (String.valueOf(problem.code())) {
                  case "LOCK_LOST" ->
                      new LockLostException(key, problem.lostReason(), problem.describe());
                  case "SESSION_NOT_FOUND" -> new SessionNotFoundException(sessionId);
                  default -> null;
                });
    return body.toGrant();
  }

  void release(LockKey key, SessionId sessionId, FencingToken token) {
    exchange(
        client
            .post()
            .uri("/v1/locks/{key}/release", key.value())
            .contentType(MediaType.APPLICATION_JSON)
            .body(new TokenBody(sessionId.value(), token.value())),
        Void.class,
        problem ->
            switch (String.valueOf(problem.code())) {
              case "NOT_HOLDER", "LOCK_LOST" -> new NotHolderException(key);
              case "SESSION_NOT_FOUND" -> new NotHolderException(key);
              default -> null;
            });
  }

  private RestClient acquireClient(Duration wait) {
    if (wait.isZero()) {
      return client;
    }
    RestClient cached = acquireClients.get(wait);
    if (cached != null) {
      return cached;
    }
    RestClient created = withResponseTimeout(readTimeout.plus(wait));
    if (acquireClients.size() < MAX_CACHED_ACQUIRE_CLIENTS) {
      acquireClients.putIfAbsent(wait, created);
    }
    return created;
  }

  private RestClient withResponseTimeout(Duration timeout) {
    return builder.clone().requestFactory(http.requestFactory(timeout)).build();
  }

  /** Closes the pooled connections; the client is not used after this. */
  void close() {
    http.close();
  }

  /**
   * Sends the request and maps the answer: 2xx to the body, a contract problem to its exception
   * (via {@code known}, null when the code is not one it expects), the rest by status class.
   */
  private static <T> T exchange(
      RestClient.RequestHeadersSpec<?> request,
      Class<T> type,
      Function<Problem, RuntimeException> known) {
    try {
      return request.exchange(
          (req, response) -> {
            HttpStatusCode status = response.getStatusCode();
            if (status.is2xxSuccessful()) {
              if (type == Void.class) {
                return null;
              }
              T body = response.bodyTo(type);
              if (body == null) {
                throw new LockServiceUnavailableException(
                    "lock server answered " + status.value() + " without a body", null);
              }
              return body;
            }
            Problem problem = readProblem(response);
            if (status.value() == 502 || status.value() == 503 || status.value() == 504) {
              throw new LockServerUnreachableException(
                  "lock server answered " + status.value() + " " + problem.describe(), null);
            }
            RuntimeException mapped = known.apply(problem);
            if (mapped != null) {
              throw mapped;
            }
            if (status.is4xxClientError()) {
              throw new LockRequestRejectedException(
                  status.value(), problem.code(), problem.describe());
            }
            throw new LockServiceUnavailableException(
                "lock server failed: " + status.value() + " " + problem.describe(), null);
          });
    } catch (LockException | LockServerUnreachableException e) {
      throw e;
    } catch (ResourceAccessException e) {
      throw new LockServerUnreachableException(
          "lock server unreachable: " + rootMessage(e), e.getCause() != null ? e.getCause() : e);
    } catch (RestClientException e) {
      if (hasIoCause(e)) {
        // The body read failed in transit, including the response timeout expiring while the
        // body streamed in. A transport failure like any other.
        throw new LockServerUnreachableException(
            "lock server answer interrupted: " + rootMessage(e), e);
      }
      throw new LockServiceUnavailableException(
          "unreadable answer from lock server: " + rootMessage(e), e);
    } catch (RuntimeException e) {
      // Anything else the HTTP stack throws: fail closed, do not guess that a retry would help.
      throw new LockServiceUnavailableException(
          "unexpected failure talking to the lock server: " + rootMessage(e), e);
    }
  }

  private static Problem readProblem(
      RestClient.RequestHeadersSpec.ConvertibleClientHttpResponse response) {
    try {
      Problem problem = response.bodyTo(Problem.class);
      return problem == null ? Problem.EMPTY : problem;
    } catch (RuntimeException e) {
      if (hasIoCause(e)) {
        throw new LockServerUnreachableException(
            "lock server answer interrupted: " + rootMessage(e), e);
      }
      // Not a problem document (a proxy's HTML error page, say): the status alone decides.
      return Problem.EMPTY;
    }
  }

  private static boolean hasIoCause(Throwable e) {
    for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
      if (t instanceof java.io.IOException || t instanceof java.io.UncheckedIOException) {
        return true;
      }
    }
    return false;
  }

  /** The innermost cause, as its class and message, for a log event or an exception message. */
  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
  }

  record CreateSessionBody(String owner, long ttlMillis) {}

  record AcquireBody(String sessionId, long waitMillis) {}

  record TokenBody(String sessionId, long token) {}

  record SessionBody(String sessionId, String owner, Long ttlMillis, Instant expiresAt) {
    SessionInfo toInfo() {
      if (sessionId == null || ttlMillis == null || expiresAt == null) {
        throw new LockServiceUnavailableException(
            "lock server sent an incomplete session: " + this, null);
      }
      return new SessionInfo(
          SessionId.of(sessionId), owner, Duration.ofMillis(ttlMillis), expiresAt);
    }
  }

  record GrantBody(
      String key,
      String owner,
      String sessionId,
      Long token,
      Instant acquiredAt,
      Instant expiresAt,
      String signedGrant) {
    LockGrant toGrant() {
      if (key == null || sessionId == null || token == null || acquiredAt == null) {
        throw new LockServiceUnavailableException(
            "lock server sent an incomplete grant: " + this, null);
      }
      return new LockGrant(
          LockKey.of(key),
          owner == null ? "" : owner,
          SessionId.of(sessionId),
          FencingToken.of(token),
          acquiredAt,
          expiresAt == null ? acquiredAt : expiresAt,
          signedGrant);
    }
  }

  /** An RFC 9457 problem document with the contract's {@code code} (and optional reason). */
  record Problem(
      String type, String title, Integer status, String detail, String code, String reason) {

    static final Problem EMPTY = new Problem(null, null, null, null, null, null);

    /**
     * Why the server says the grant is gone: its {@code reason} field, else the reason the server's
     * {@code LockLostException} message carries in its detail, else NOT_HELD.
     */
    LockLostException.Reason lostReason() {
      for (LockLostException.Reason r : LockLostException.Reason.values()) {
        if (r.name().equalsIgnoreCase(reason)
            || (detail != null && detail.contains("(" + r.name() + ")"))) {
          return r;
        }
      }
      return LockLostException.Reason.NOT_HELD;
    }

    String describe() {
      return (code == null ? "" : code)
          + (detail == null ? (title == null ? "" : " " + title) : " " + detail);
    }
  }
}
