package dev.fencepost.lock.client.impl;

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
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.client.AbstractBufferingClientHttpRequest;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.JdkClientHttpRequestFactory;
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
 * <p>Spring's {@link RestClient} over a lean blocking HTTP/1.1 transport ({@link Http11Transport}):
 * kept-alive sockets with TCP_NODELAY, the whole request (headers and body) in one write, and the
 * answer read on the caller's thread. The JDK {@code HttpClient} used before hands every exchange
 * to its selector thread and an executor and back; on this project's 2-core machine that cost
 * 0.5-0.7 ms per request on loopback against ~0.1 ms for a plain socket (ADR 0092), and each hop
 * waits for a core when the machine is busy. An explicit connect timeout, a response timeout per
 * request (the configured read timeout, plus the server-side wait for acquire), no proxy, no
 * redirects, no compression. A request is never re-sent by the transport: any I/O failure,
 * including a kept-alive connection the server had already closed, surfaces as unreachable and is
 * the caller's to retry. Over {@code https} the same transport runs over TLS with the JVM's default
 * trust and host name verification (ADR 0150). The client's own JSON mapper is used, never the
 * application's, and it ignores fields added to the contract later.
 */
final class LockServerHttp {

  private static final int MAX_CACHED_ACQUIRE_CLIENTS = 8;

  private final Duration connectTimeout;
  private final URI baseUrl;
  private final ConnectionPool connections = new ConnectionPool();
  private final RestClient.Builder builder;
  private final RestClient client;
  private final Duration readTimeout;
  private final Map<Duration, RestClient> acquireClients = new ConcurrentHashMap<>();

  LockServerHttp(LockClientSettings settings) {
    this.readTimeout = settings.readTimeout();
    this.connectTimeout = settings.connectTimeout();
    this.baseUrl = settings.baseUrl();
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
    ClientHttpRequestFactory factory;
    if ("http".equalsIgnoreCase(baseUrl.getScheme())) {
      factory = new Http11Transport(connections, connectTimeout, timeout, null);
    } else if ("https".equalsIgnoreCase(baseUrl.getScheme())) {
      // The same lean transport over TLS (ADR 0150), with this JVM's default trust: the JDK's CAs
      // and whatever javax.net.ssl.trustStore adds (the local run's CA, a cluster's issuer).
      factory = new Http11Transport(connections, connectTimeout, timeout, defaultTls());
    } else {
      JdkClientHttpRequestFactory jdk =
          new JdkClientHttpRequestFactory(
              HttpClient.newBuilder()
                  .connectTimeout(connectTimeout)
                  .version(HttpClient.Version.HTTP_1_1)
                  .followRedirects(HttpClient.Redirect.NEVER)
                  .build());
      jdk.setReadTimeout(timeout);
      jdk.enableCompression(false);
      factory = jdk;
    }
    return builder.clone().requestFactory(factory).build();
  }

  private static SSLSocketFactory defaultTls() {
    try {
      return SSLContext.getDefault().getSocketFactory();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("no default TLS context", e);
    }
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
        // body streamed in (the JDK request factory then closes the stream: "IOException:
        // closed"). A transport failure like any other.
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

  private static String rootMessage(Throwable e) {
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

  /**
   * Idle kept-alive connections per {@code host:port}. An idle connection older than {@link
   * #MAX_IDLE_NANOS} is closed instead of reused: servers drop idle connections after their own
   * keep-alive timeout (Tomcat: 60 s by default), and a reused dead one costs the caller a failed
   * request.
   */
  static final class ConnectionPool {
    private static final long MAX_IDLE_NANOS = TimeUnit.SECONDS.toNanos(4);
    private static final int MAX_IDLE_PER_ADDRESS = 64;

    private final Map<String, ConcurrentLinkedDeque<Connection>> idle = new ConcurrentHashMap<>();

    Connection take(String address) {
      ConcurrentLinkedDeque<Connection> queue = idle.get(address);
      if (queue == null) {
        return null;
      }
      long now = System.nanoTime();
      for (Connection c = queue.pollFirst(); c != null; c = queue.pollFirst()) {
        if (now - c.idleSince < MAX_IDLE_NANOS && !c.socket.isClosed()) {
          return c;
        }
        c.closeQuietly();
      }
      return null;
    }

    void give(String address, Connection connection) {
      ConcurrentLinkedDeque<Connection> queue =
          idle.computeIfAbsent(address, a -> new ConcurrentLinkedDeque<>());
      if (queue.size() >= MAX_IDLE_PER_ADDRESS) {
        connection.closeQuietly();
        return;
      }
      connection.idleSince = System.nanoTime();
      // Most recently used first: it is the least likely to have been closed by the server.
      queue.offerFirst(connection);
    }
  }

  /** One kept-alive socket. */
  static final class Connection {
    final Socket socket;
    final InputStream in;
    final OutputStream out;
    long idleSince;

    Connection(Socket socket) throws IOException {
      this.socket = socket;
      this.in = new BufferedInputStream(socket.getInputStream(), 8192);
      this.out = socket.getOutputStream();
    }

    void closeQuietly() {
      try {
        socket.close();
      } catch (IOException ignored) {
        // already gone
      }
    }
  }

  /**
   * A blocking HTTP/1.1 client for the lock server's small JSON exchanges, as a Spring request
   * factory so that {@link RestClient} and its converters stay as they are. Bodies are buffered
   * (they are a few hundred bytes); responses are read completely (bounded) before the connection
   * goes back to the pool.
   */
  static final class Http11Transport implements ClientHttpRequestFactory {
    private static final int MAX_RESPONSE_BYTES = 1 << 20;
    // The head as a whole, not only each line: a peer sending header lines without end would grow
    // the heap until the response timeout, which for an acquire includes the server-side wait.
    private static final int MAX_HEAD_BYTES = 64 * 1024;

    private final ConnectionPool pool;
    private final int connectTimeoutMillis;
    private final long responseTimeoutNanos;
    private final SSLSocketFactory tls;

    /** {@code tls} null: cleartext; otherwise TLS over each connection, the host name verified. */
    Http11Transport(
        ConnectionPool pool,
        Duration connectTimeout,
        Duration responseTimeout,
        SSLSocketFactory tls) {
      this.pool = pool;
      this.tls = tls;
      this.connectTimeoutMillis =
          (int) Math.max(1, Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()));
      this.responseTimeoutNanos = responseTimeout.toNanos();
    }

    @Override
    public org.springframework.http.client.ClientHttpRequest createRequest(
        URI uri, HttpMethod method) {
      return new Request(uri, method);
    }

    private final class Request extends AbstractBufferingClientHttpRequest {
      private final URI uri;
      private final HttpMethod method;

      Request(URI uri, HttpMethod method) {
        this.uri = uri;
        this.method = method;
      }

      @Override
      public HttpMethod getMethod() {
        return method;
      }

      @Override
      public URI getURI() {
        return uri;
      }

      @Override
      protected ClientHttpResponse executeInternal(HttpHeaders headers, byte[] body)
          throws IOException {
        long deadline = System.nanoTime() + responseTimeoutNanos;
        int port = uri.getPort() < 0 ? (tls == null ? 80 : 443) : uri.getPort();
        String address = uri.getHost() + ":" + port;
        // A TLS connection and a cleartext one to the same address are never each other's.
        String poolKey = (tls == null ? "http://" : "https://") + address;
        byte[] request = encode(address, headers, body);
        Connection connection = pool.take(poolKey);
        if (connection == null) {
          connection = open(uri.getHost(), port, deadline);
        }
        boolean reusable = false;
        try {
          connection.out.write(request);
          connection.out.flush();
          Response response = read(connection, deadline);
          reusable = response.keepAlive;
          return response;
        } finally {
          if (reusable) {
            pool.give(poolKey, connection);
          } else {
            connection.closeQuietly();
          }
        }
      }

      private byte[] encode(String address, HttpHeaders headers, byte[] body) {
        StringBuilder head = new StringBuilder(256);
        String path =
            uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        head.append(method.name()).append(' ').append(path);
        if (uri.getRawQuery() != null) {
          head.append('?').append(uri.getRawQuery());
        }
        head.append(" HTTP/1.1\r\nHost: ").append(address).append("\r\n");
        headers.forEach(
            (name, values) -> {
              if (!HttpHeaders.CONTENT_LENGTH.equalsIgnoreCase(name)
                  && !HttpHeaders.HOST.equalsIgnoreCase(name)
                  && !HttpHeaders.CONNECTION.equalsIgnoreCase(name)) {
                for (String value : values) {
                  head.append(name).append(": ").append(value).append("\r\n");
                }
              }
            });
        if (body.length > 0 || method == HttpMethod.POST || method == HttpMethod.PUT) {
          head.append("Content-Length: ").append(body.length).append("\r\n");
        }
        head.append("\r\n");
        byte[] headBytes = head.toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] all = new byte[headBytes.length + body.length];
        System.arraycopy(headBytes, 0, all, 0, headBytes.length);
        System.arraycopy(body, 0, all, headBytes.length, body.length);
        return all;
      }

      private Connection open(String host, int port, long deadline) throws IOException {
        Socket socket = new Socket();
        try {
          // One write per request and a reply expected at once: never wait for an ACK to send.
          socket.setTcpNoDelay(true);
          socket.connect(new InetSocketAddress(host, port), connectTimeoutMillis);
          if (tls == null) {
            return new Connection(socket);
          }
          SSLSocket secured = (SSLSocket) tls.createSocket(socket, host, port, true);
          socket = secured;
          SSLParameters parameters = secured.getSSLParameters();
          // Host name verification, as any HTTPS client does: the certificate must name the host.
          parameters.setEndpointIdentificationAlgorithm("HTTPS");
          secured.setSSLParameters(parameters);
          // The handshake is bounded by the response timeout, like the answer it precedes.
          long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
          secured.setSoTimeout((int) Math.min(Integer.MAX_VALUE, left));
          secured.startHandshake();
          return new Connection(secured);
        } catch (IOException e) {
          socket.close();
          throw e;
        }
      }

      private Response read(Connection c, long deadline) throws IOException {
        while (true) {
          String statusLine = line(c, deadline);
          if (statusLine == null) {
            throw new EOFException("connection closed before a response");
          }
          String[] parts = statusLine.split(" ", 3);
          if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP/1.x status line: " + statusLine);
          }
          // Exactly three digits (RFC 9112): "2000" or "-200" would otherwise send the connection
          // back to the pool and fail only later, unchecked, in HttpStatusCode.
          if (!parts[1].matches("[1-9][0-9][0-9]")) {
            throw new IOException("not an HTTP status: " + statusLine);
          }
          int status = Integer.parseInt(parts[1]);
          HttpHeaders headers = new HttpHeaders();
          int headBytes = statusLine.length();
          for (String h = line(c, deadline); h != null && !h.isEmpty(); h = line(c, deadline)) {
            headBytes += h.length() + 2;
            if (headBytes > MAX_HEAD_BYTES) {
              throw new IOException("response head over " + MAX_HEAD_BYTES + " bytes");
            }
            int colon = h.indexOf(':');
            if (colon > 0) {
              headers.add(h.substring(0, colon).trim(), h.substring(colon + 1).trim());
            }
          }
          if (status >= 100 && status < 200) {
            continue; // an interim answer; the real one follows
          }
          // Any "close" token counts, not only the first ("keep-alive, close" closes).
          boolean keepAlive =
              parts[0].equals("HTTP/1.1")
                  && headers.getConnection().stream().noneMatch("close"::equalsIgnoreCase);
          byte[] body;
          if (method == HttpMethod.HEAD || status == 204 || status == 304) {
            body = new byte[0];
          } else if ("chunked".equalsIgnoreCase(headers.getFirst(HttpHeaders.TRANSFER_ENCODING))) {
            body = chunked(c, deadline);
          } else if (headers.containsHeader(HttpHeaders.CONTENT_LENGTH)) {
            long length = contentLength(headers, statusLine);
            if (length > MAX_RESPONSE_BYTES) {
              throw new IOException("response body of " + length + " bytes is too large");
            }
            body = exactly(c, (int) length, deadline);
          } else {
            body = untilClose(c, deadline);
            keepAlive = false;
          }
          return new Response(status, parts.length > 2 ? parts[2] : "", headers, body, keepAlive);
        }
      }

      /**
       * The declared length; one that is not a non-negative number is a malformed answer like any
       * other (an I/O failure), not HttpHeaders' unchecked NumberFormatException ("lots") or a read
       * until the peer closes ("-5").
       */
      private static long contentLength(HttpHeaders headers, String statusLine) throws IOException {
        String value = headers.getFirst(HttpHeaders.CONTENT_LENGTH);
        if (value == null || !value.matches("[0-9]{1,18}")) {
          throw new IOException("bad Content-Length " + value + " after " + statusLine);
        }
        return Long.parseLong(value);
      }

      private byte[] chunked(Connection c, long deadline) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream(256);
        while (true) {
          String sizeLine = line(c, deadline);
          if (sizeLine == null) {
            throw new EOFException("connection closed inside a chunked body");
          }
          int semicolon = sizeLine.indexOf(';');
          int size;
          try {
            size =
                Integer.parseInt(
                    (semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
          } catch (NumberFormatException e) {
            throw new IOException("bad chunk size: " + sizeLine, e);
          }
          if (size == 0) {
            // Trailers, if any, end with an empty line.
            for (String t = line(c, deadline); t != null && !t.isEmpty(); t = line(c, deadline)) {
              // ignored
            }
            return body.toByteArray();
          }
          // In long: in int a size near 2^31 after a first chunk overflows past the bound and asks
          // for a 2 GiB array (OutOfMemoryError in the caller); a negative one is no size at all.
          if (size < 0 || (long) body.size() + size > MAX_RESPONSE_BYTES) {
            throw new IOException("bad or too large chunk size: " + sizeLine);
          }
          body.write(exactly(c, size, deadline));
          line(c, deadline);
        }
      }

      private byte[] exactly(Connection c, int length, long deadline) throws IOException {
        byte[] bytes = new byte[length];
        int read = 0;
        while (read < length) {
          timeout(c, deadline);
          int n = c.in.read(bytes, read, length - read);
          if (n < 0) {
            throw new EOFException("connection closed inside a response body");
          }
          read += n;
        }
        return bytes;
      }

      private byte[] untilClose(Connection c, long deadline) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream(256);
        byte[] chunk = new byte[4096];
        while (true) {
          timeout(c, deadline);
          int n = c.in.read(chunk);
          if (n < 0) {
            return body.toByteArray();
          }
          if (body.size() + n > MAX_RESPONSE_BYTES) {
            throw new IOException("response body too large");
          }
          body.write(chunk, 0, n);
        }
      }

      /** One CRLF-terminated line, or null at end of stream before any byte of it. */
      private String line(Connection c, long deadline) throws IOException {
        StringBuilder line = new StringBuilder(64);
        while (true) {
          timeout(c, deadline);
          int b = c.in.read();
          if (b < 0) {
            if (line.length() == 0) {
              return null;
            }
            throw new EOFException("connection closed inside a header line");
          }
          if (b == '\n') {
            int end = line.length();
            if (end > 0 && line.charAt(end - 1) == '\r') {
              line.setLength(end - 1);
            }
            return line.toString();
          }
          if (line.length() > 16 * 1024) {
            throw new IOException("response header line too long");
          }
          line.append((char) b);
        }
      }

      /** The response timeout bounds the whole answer, not each read. */
      private void timeout(Connection c, long deadline) throws IOException {
        if (c.in.available() > 0) {
          return;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new SocketTimeoutException("no complete response within the response timeout");
        }
        c.socket.setSoTimeout(
            (int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(left))));
      }
    }
  }

  /** A fully read response. */
  private static final class Response implements ClientHttpResponse {
    private final int status;
    private final String reason;
    private final HttpHeaders headers;
    private final byte[] body;
    private final boolean keepAlive;

    Response(int status, String reason, HttpHeaders headers, byte[] body, boolean keepAlive) {
      this.status = status;
      this.reason = reason;
      this.headers = headers;
      this.body = body;
      this.keepAlive = keepAlive;
    }

    @Override
    public HttpStatusCode getStatusCode() {
      return HttpStatusCode.valueOf(status);
    }

    @Override
    public String getStatusText() {
      return reason;
    }

    @Override
    public HttpHeaders getHeaders() {
      return headers;
    }

    @Override
    public InputStream getBody() {
      return new ByteArrayInputStream(body);
    }

    @Override
    public void close() {
      // Fully read already; the connection went back to the pool (or was closed) on arrival.
    }
  }
}
