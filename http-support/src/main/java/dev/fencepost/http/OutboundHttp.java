package dev.fencepost.http;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.apache.hc.client5.http.classic.ExecChain;
import org.apache.hc.client5.http.classic.ExecChainHandler;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.impl.DefaultClientConnectionReuseStrategy;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.ManagedHttpClientConnectionFactory;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy;
import org.apache.hc.client5.http.ssl.TlsSocketStrategy;
import org.apache.hc.core5.concurrent.Cancellable;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.HttpConnection;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.config.Http1Config;
import org.apache.hc.core5.http.impl.Http1StreamListener;
import org.apache.hc.core5.http.impl.io.HttpRequestExecutor;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.http.io.entity.HttpEntityWrapper;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;
import org.springframework.http.HttpMethod;
import org.springframework.http.client.BufferingClientHttpRequestFactory;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;

/**
 * The platform's one outbound HTTP client stack (ADR 0197): Spring's {@link RestClient} over Apache
 * HttpClient 5 classic, configured once for every caller (the lock starter, the payout worker's
 * proxy client, the rail proxy's rail client, reconciliation's sources, the operator console, the
 * token fetches):
 *
 * <ul>
 *   <li><b>No automatic re-send, ever</b> (ADR 0042, UC-05). HttpClient 5's default retry strategy
 *       re-sends an idempotent request after an I/O error and <em>any</em> request, a POST
 *       included, that was answered 429 or 503; a re-sent payment submit is a second payment. So
 *       {@code disableAutomaticRetries()} here, for every client this class builds: a failure
 *       reaches the caller, which alone knows whether a retry is safe.
 *   <li>No redirect followed, no compression, no cookies, no proxy (the system properties are not
 *       read), HTTP/1.1.
 *   <li>TLS with the JVM's default {@link SSLContext} (its trust store: the JDK's CAs and whatever
 *       {@code javax.net.ssl.trustStore} adds, ADR 0150) and host name verification.
 *   <li>Pooled kept-alive connections with TCP_NODELAY. An idle connection is kept {@link
 *       Builder#idleFor} (4 s), well inside servers' own keep-alive timeouts, and one idle for over
 *       2 s is checked before it is reused (a read of at most 1 ms): a connection the server closed
 *       meanwhile is replaced before anything is written to it.
 *   <li>A connect timeout, and a response timeout per request factory that bounds the exchange as a
 *       whole: the wait for the answer's head and the reading of its body together. HttpClient 5's
 *       own response timeout is a socket read timeout, which a body trickling in a byte at a time
 *       never trips; here a watchdog (one daemon thread for the JVM, waking every {@value
 *       #WATCHDOG_MILLIS} ms) aborts an exchange past its deadline once its request has been
 *       written, and the caller gets an I/O failure. Before the request is written the connect
 *       timeout and the wait for a pooled connection bound it. A caller whose requests differ in
 *       budget (an acquire that waits on the server) asks {@link #requestFactory(Duration)} for
 *       each budget; they share the pool.
 *   <li>Bodies buffered both ways: a request goes out with its Content-Length (head and body in one
 *       write), and the answer is read whole within the deadline before the caller sees it. An
 *       answer's head is bounded ({@value #MAX_HEADERS} header lines of at most {@value
 *       #MAX_LINE_BYTES} bytes), and its body when the caller sets {@link
 *       Builder#maxResponseBytes}: one announced larger is refused unread, one that grows larger
 *       fails; its connection is closed either way.
 * </ul>
 *
 * <p>A transport failure is an {@link IOException} under Spring's {@code ResourceAccessException}
 * (or, while the body is read, under a {@code RestClientException}); the request may or may not
 * have reached the server, and it was sent at most once.
 */
public final class OutboundHttp implements AutoCloseable {

  /** How often the watchdog looks for exchanges past their deadline. */
  static final long WATCHDOG_MILLIS = 25;

  private static final String BUDGET = OutboundHttp.class.getName() + ".budget";

  /** The longest line, and the most header lines, an answer's head may have. */
  static final int MAX_LINE_BYTES = 16 * 1024;

  static final int MAX_HEADERS = 64;

  private final CloseableHttpClient client;
  private final PoolingHttpClientConnectionManager connections;
  private final Duration responseTimeout;
  private final Duration idleFor;
  private final long maxResponseBytes;

  /**
   * The exchange the calling thread is executing: HttpClient's classic API writes the request on
   * the caller's thread, so the stream listener below finds it here.
   */
  private static final ThreadLocal<Exchange> CURRENT = new ThreadLocal<>();

  /** Every instance's exchanges under way, watched by one daemon thread for the whole JVM. */
  private static final Set<Exchange> inFlight = ConcurrentHashMap.newKeySet();

  private static ScheduledExecutorService watchdog;
  private final Map<Duration, ClientHttpRequestFactory> factories = new ConcurrentHashMap<>();

  private OutboundHttp(Builder b) {
    this.responseTimeout = b.responseTimeout;
    this.idleFor = b.idleFor;
    this.maxResponseBytes = b.maxResponseBytes;
    this.connections =
        PoolingHttpClientConnectionManagerBuilder.create()
            // An answer's head is bounded: a peer sending header lines without end would grow the
            // heap until the deadline.
            .setConnectionFactory(
                ManagedHttpClientConnectionFactory.builder()
                    .http1Config(
                        Http1Config.custom()
                            .setMaxLineLength(MAX_LINE_BYTES)
                            .setMaxHeaderCount(MAX_HEADERS)
                            .build())
                    .build())
            // The JVM's default trust, the host name verified against the certificate.
            .setTlsSocketStrategy(new DefaultTls())
            // One write per request and an answer expected at once: never wait for an ACK.
            .setDefaultSocketConfig(SocketConfig.custom().setTcpNoDelay(true).build())
            .setDefaultConnectionConfig(
                ConnectionConfig.custom()
                    .setConnectTimeout(Timeout.of(b.connectTimeout))
                    .setSocketTimeout(Timeout.of(b.responseTimeout))
                    .setValidateAfterInactivity(TimeValue.ofSeconds(2))
                    .build())
            .setMaxConnPerRoute(b.maxConnections)
            .setMaxConnTotal(b.maxConnections * 4)
            .build();
    TimeValue idle = TimeValue.of(b.idleFor.toMillis(), TimeUnit.MILLISECONDS);
    this.client =
        HttpClients.custom()
            .setConnectionManager(connections)
            // ADR 0042, UC-05: never re-send a request. HttpClient 5's default strategy re-sends an
            // idempotent request after an I/O error and any request (POST included) answered 429
            // or 503. Disabled for every caller, not only the payment paths.
            .disableAutomaticRetries()
            .disableRedirectHandling()
            .disableContentCompression()
            .disableCookieManagement()
            .disableAuthCaching()
            // Idle connections are kept at most idleFor, or less when the server says so.
            .setKeepAliveStrategy(
                (response, context) -> {
                  TimeValue offered =
                      org.apache.hc.client5.http.impl.DefaultConnectionKeepAliveStrategy.INSTANCE
                          .getKeepAliveDuration(response, context);
                  return offered != null && offered.compareTo(idle) < 0 ? offered : idle;
                })
            .addExecInterceptorFirst("fencepost-deadline", new Deadline())
            // Tells the watchdog when an exchange's request has been written (see abortOverdue).
            .setRequestExecutor(
                new HttpRequestExecutor(
                    HttpRequestExecutor.DEFAULT_WAIT_FOR_CONTINUE,
                    DefaultClientConnectionReuseStrategy.INSTANCE,
                    new Http1StreamListener() {
                      @Override
                      public void onRequestHead(HttpConnection connection, HttpRequest request) {
                        Exchange e = CURRENT.get();
                        if (e != null && e.sentAt == 0) {
                          e.sentAt = System.nanoTime();
                        }
                      }

                      @Override
                      public void onResponseHead(
                          HttpConnection connection, HttpResponse response) {}

                      @Override
                      public void onExchangeComplete(
                          HttpConnection connection, boolean keepAlive) {}
                    }))
            .build();
    startWatchdog();
  }

  /** An answer read whole: its status code and its body as UTF-8 text (empty when it had none). */
  public record Answer(int statusCode, String body) {}

  /**
   * Sends {@code request} once and reads its whole answer, whatever the status: the callers that
   * decide for themselves what each status means (a payment submit, a lookup, an operator's call)
   * use this instead of Spring's status handlers. A transport failure, the whole-exchange deadline
   * included, is thrown as the {@link IOException} behind Spring's exception, or as one wrapping it
   * when there is none; the request may or may not have reached the server.
   */
  public static Answer exchange(RestClient.RequestHeadersSpec<?> request) throws IOException {
    try {
      return request.exchange(
          (req, response) ->
              new Answer(
                  response.getStatusCode().value(),
                  new String(response.getBody().readAllBytes(), StandardCharsets.UTF_8)));
    } catch (RestClientException e) {
      for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
        if (t instanceof IOException io) {
          throw io;
        }
      }
      throw new IOException(
          e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()), e);
    }
  }

  private static synchronized void startWatchdog() {
    if (watchdog != null) {
      return;
    }
    ScheduledThreadPoolExecutor timer =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "outbound-http-watchdog");
              t.setDaemon(true);
              return t;
            });
    timer.scheduleWithFixedDelay(
        OutboundHttp::abortOverdue, WATCHDOG_MILLIS, WATCHDOG_MILLIS, TimeUnit.MILLISECONDS);
    watchdog = timer;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Requests bounded by the builder's response timeout. */
  public ClientHttpRequestFactory requestFactory() {
    return requestFactory(responseTimeout);
  }

  /**
   * Requests each bounded as a whole by {@code budget} (head and body), over this instance's pool.
   * Cached per budget.
   */
  public ClientHttpRequestFactory requestFactory(Duration budget) {
    if (budget.isNegative() || budget.isZero()) {
      throw new IllegalArgumentException("a response timeout must be positive: " + budget);
    }
    ClientHttpRequestFactory cached = factories.get(budget);
    if (cached != null) {
      return cached;
    }
    // Buffered: a request's body goes out with its Content-Length, head and body in one write, and
    // the answer is read whole, within the deadline, before the caller sees it.
    ClientHttpRequestFactory created =
        new BufferingClientHttpRequestFactory(new BudgetedFactory(client, budget));
    // A caller asking for ever new budgets gets uncached factories rather than a growing map.
    if (factories.size() < 32) {
      factories.putIfAbsent(budget, created);
    }
    return created;
  }

  /**
   * A {@link RestClient} builder to {@code baseUrl} over {@link #requestFactory()}, with {@code
   * authorization} on every request (none when null: a caller's {@code
   * BearerTokenSource.interceptor()}). The caller adds its converters and default headers.
   */
  public RestClient.Builder restClient(String baseUrl, ClientHttpRequestInterceptor authorization) {
    RestClient.Builder builder = RestClient.builder().requestFactory(requestFactory());
    if (baseUrl != null) {
      builder.baseUrl(baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl);
    }
    if (authorization != null) {
      builder.requestInterceptor(authorization);
    }
    return builder;
  }

  /** How long an idle kept-alive connection is kept ({@link Builder#idleFor}). */
  public Duration idleFor() {
    return idleFor;
  }

  /** The connections this instance pools (for tests and diagnostics). */
  PoolingHttpClientConnectionManager connections() {
    return connections;
  }

  @Override
  public void close() {
    try {
      client.close();
    } catch (IOException ignored) {
      // closing
    }
  }

  /**
   * Aborts every exchange past its deadline whose request has been written, at least one tick ago
   * (so that a request whose head is written is also flushed before its exchange can be aborted).
   * One not yet written is left to the connect timeout and the wait for a pooled connection: a
   * process paused past a deadline (a long GC, a frozen container) then sends its request and fails
   * at once, as the JDK client and the lock starter's own transport did, rather than abandoning it
   * unsent at a moment that depends on which thread the scheduler wakes first.
   */
  private static void abortOverdue() {
    long now = System.nanoTime();
    for (Exchange e : inFlight) {
      long sent = e.sentAt;
      if (sent != 0
          && now - e.deadline >= 0
          && now - sent >= TimeUnit.MILLISECONDS.toNanos(WATCHDOG_MILLIS)
          && inFlight.remove(e)) {
        e.overdue = true;
        e.request.cancel();
      }
    }
  }

  /**
   * TLS over a new connection with the JVM's default {@link SSLContext} as it is when the
   * connection opens, not when the client was built: a process that installs its trust later (the
   * launcher's LocalTls, a test's) still gets it, as the JDK's HTTPS clients do.
   */
  private static final class DefaultTls implements TlsSocketStrategy {
    private volatile SSLContext context;
    private volatile DefaultClientTlsStrategy strategy;

    @Override
    public SSLSocket upgrade(
        Socket socket, String target, int port, Object attachment, HttpContext httpContext)
        throws IOException {
      SSLContext current;
      try {
        current = SSLContext.getDefault();
      } catch (NoSuchAlgorithmException e) {
        throw new IOException("no default TLS context", e);
      }
      DefaultClientTlsStrategy tls = strategy;
      if (tls == null || context != current) {
        tls = new DefaultClientTlsStrategy(current);
        strategy = tls;
        context = current;
      }
      return tls.upgrade(socket, target, port, attachment, httpContext);
    }
  }

  /** What {@link OutboundHttp} builds from. */
  public static final class Builder {
    private Duration connectTimeout = Duration.ofSeconds(2);
    private Duration responseTimeout = Duration.ofSeconds(5);
    private Duration idleFor = Duration.ofSeconds(4);
    private int maxConnections = 64;
    private long maxResponseBytes = Long.MAX_VALUE;

    private Builder() {}

    /** How long opening a connection (TCP and TLS handshake) may take; 2 s unless set. */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = positive(timeout);
      return this;
    }

    /**
     * The default bound of one exchange, head and body, from the moment it is sent; 5 s unless set.
     */
    public Builder responseTimeout(Duration timeout) {
      this.responseTimeout = positive(timeout);
      return this;
    }

    /** How long an idle kept-alive connection is kept; 4 s unless set. */
    public Builder idleFor(Duration idle) {
      this.idleFor = positive(idle);
      return this;
    }

    /**
     * Connections per host and port (64 unless set). A request finding them all busy waits for one
     * up to the connect timeout, then fails with nothing sent.
     */
    public Builder maxConnections(int max) {
      if (max < 1) {
        throw new IllegalArgumentException("maxConnections must be at least 1");
      }
      this.maxConnections = max;
      return this;
    }

    /**
     * The largest answer body accepted (none unless set): one announced larger is refused before
     * any of it is read, one that grows larger fails as it does; either way its connection is
     * closed.
     */
    public Builder maxResponseBytes(long max) {
      if (max < 1) {
        throw new IllegalArgumentException("maxResponseBytes must be at least 1");
      }
      this.maxResponseBytes = max;
      return this;
    }

    public OutboundHttp build() {
      return new OutboundHttp(this);
    }

    private static Duration positive(Duration d) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("must be positive: " + d);
      }
      return d;
    }
  }

  /**
   * Spring's factory over the shared client, each request carrying its budget: the read timeout
   * HttpClient applies per socket read, and the whole-exchange deadline {@link Deadline} enforces.
   */
  private static final class BudgetedFactory extends HttpComponentsClientHttpRequestFactory {
    private final Duration budget;

    BudgetedFactory(CloseableHttpClient client, Duration budget) {
      super(client);
      this.budget = budget;
      setReadTimeout(budget);
      // Waiting for a pooled connection is bounded too; nothing has been sent while it waits.
      setConnectionRequestTimeout(budget);
    }

    @Override
    protected HttpContext createHttpContext(HttpMethod httpMethod, URI uri) {
      HttpClientContext context = HttpClientContext.create();
      context.setAttribute(BUDGET, budget);
      return context;
    }

    @Override
    public void destroy() {
      // The client is the OutboundHttp's, shared by every factory; it closes it.
    }
  }

  /** One exchange under way: its deadline and how to abort it. */
  private static final class Exchange {
    final long deadline;
    final Cancellable request;
    volatile long sentAt;
    volatile boolean overdue;

    Exchange(long deadline, Cancellable request) {
      this.deadline = deadline;
      this.request = request;
    }
  }

  /**
   * First in HttpClient's execution chain: registers the exchange with the watchdog until its
   * response body has been read or closed (or it failed), so that the deadline covers the body too.
   */
  private final class Deadline implements ExecChainHandler {
    @Override
    public ClassicHttpResponse execute(
        ClassicHttpRequest request, ExecChain.Scope scope, ExecChain chain)
        throws IOException, HttpException {
      Object budget = scope.clientContext.getAttribute(BUDGET);
      if (!(budget instanceof Duration d)) {
        return chain.proceed(request, scope);
      }
      // Spring's requests are HttpUriRequestBase, whose cancel() shuts the connection under a
      // blocked read; the runtime's discardEndpoint() does the same for any other request.
      Cancellable abort =
          scope.originalRequest instanceof Cancellable c
              ? c
              : () -> {
                scope.execRuntime.discardEndpoint();
                return true;
              };
      Exchange exchange = new Exchange(System.nanoTime() + d.toNanos(), abort);
      inFlight.add(exchange);
      CURRENT.set(exchange);
      boolean handedOver = false;
      try {
        ClassicHttpResponse response = chain.proceed(request, scope);
        HttpEntity entity = response.getEntity();
        if (entity != null && entity.getContentLength() > maxResponseBytes) {
          // Refused unread; the connection, with the body still on it, is closed, not pooled.
          scope.execRuntime.discardEndpoint();
          throw new IOException(
              "answer body of "
                  + entity.getContentLength()
                  + " bytes is over the bound of "
                  + maxResponseBytes);
        }
        if (entity != null) {
          response.setEntity(new DeadlineEntity(entity, exchange, d, scope));
          handedOver = true;
        }
        return response;
      } catch (IOException e) {
        throw exchange.overdue ? overdue(d, e) : e;
      } finally {
        CURRENT.remove();
        if (!handedOver) {
          inFlight.remove(exchange);
        }
      }
    }
  }

  private static SocketTimeoutException overdue(Duration budget, IOException cause) {
    SocketTimeoutException timeout =
        new SocketTimeoutException("no complete answer within " + budget.toMillis() + " ms");
    timeout.initCause(cause);
    return timeout;
  }

  /** The response body, which ends the exchange's watch when read to its end or closed. */
  private final class DeadlineEntity extends HttpEntityWrapper {
    private final Exchange exchange;
    private final Duration budget;
    private final ExecChain.Scope scope;
    private long read;

    DeadlineEntity(HttpEntity entity, Exchange exchange, Duration budget, ExecChain.Scope scope) {
      super(entity);
      this.exchange = exchange;
      this.budget = budget;
      this.scope = scope;
    }

    /** Counts what was read; past the bound the connection is dropped and the read fails. */
    private void count(int n) throws IOException {
      read += n;
      if (read > maxResponseBytes) {
        scope.execRuntime.discardEndpoint();
        inFlight.remove(exchange);
        throw new IOException("answer body over the bound of " + maxResponseBytes + " bytes");
      }
    }

    @Override
    public InputStream getContent() throws IOException {
      InputStream in = super.getContent();
      return in == null
          ? null
          : new FilterInputStream(in) {
            @Override
            public int read() throws IOException {
              try {
                int b = super.read();
                if (b < 0) {
                  inFlight.remove(exchange);
                } else {
                  count(1);
                }
                return b;
              } catch (IOException e) {
                throw exchange.overdue ? overdue(budget, e) : e;
              }
            }

            @Override
            public int read(byte[] buffer, int offset, int length) throws IOException {
              try {
                int n = super.read(buffer, offset, length);
                if (n < 0) {
                  inFlight.remove(exchange);
                } else {
                  count(n);
                }
                return n;
              } catch (IOException e) {
                throw exchange.overdue ? overdue(budget, e) : e;
              }
            }

            @Override
            public void close() throws IOException {
              try {
                super.close();
              } finally {
                inFlight.remove(exchange);
              }
            }
          };
    }

    @Override
    public void close() throws IOException {
      try {
        super.close();
      } finally {
        inFlight.remove(exchange);
      }
    }
  }
}
