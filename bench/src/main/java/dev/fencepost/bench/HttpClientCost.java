package dev.fencepost.bench;

import com.sun.management.OperatingSystemMXBean;
import dev.fencepost.launcher.App;
import dev.fencepost.launcher.LocalIdentity;
import dev.fencepost.launcher.LocalTls;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.security.BearerTokenSource;
import dev.fencepost.security.FencepostRole;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Constructor;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import org.HdrHistogram.Histogram;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.util.Timeout;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * What one HTTP call costs through each client stack the platform could use (ADR 0197's
 * comparison): Spring's {@link RestClient} over (a) the lock starter's own HTTP/1.1 transport
 * ({@code LockServerHttp.Http11Transport}, ADR 0092), (b) the JDK {@code HttpClient} ({@link
 * JdkClientHttpRequestFactory}) and (c) Apache HttpClient 5 classic ({@link
 * HttpComponentsClientHttpRequestFactory} over a {@link PoolingHttpClientConnectionManager}) and,
 * where the build has it, (d) the platform's shared stack {@code OutboundHttp} as its callers use
 * it (HttpClient 5 with buffered bodies and the whole-exchange deadline), all over HTTPS with the
 * JVM's default TLS context and a bearer token on every request, as the platform's callers send
 * them. (a) exists up to the lock starter's move to the shared stack, (d) from the shared stack's
 * first commit on: a run at the harness's own commit measures (a), (b) and (c); a run at the
 * branch's head (b), (c) and (d), with (c) the link between the two.
 *
 * <p>The service is the project's rail stub (rail-stub-app's runnable jar, started through the
 * launcher as its own process with the run's certificate and identity issuer): it keeps payments in
 * memory, so the server's time per request is its HTTP, TLS, token check and JSON, with no store
 * behind it whose round trip would hide the clients' differences. Two calls: {@code GET
 * /rail/payments?clientReference=...} (the rail lookup, a small JSON answer) and {@code POST
 * /rail/payments} with a payment's small JSON body (the hot paths POST JSON; 201 and a small JSON
 * answer). Every POST carries a new client reference; the stub's movements are cleared before each
 * cell.
 *
 * <p>For each thread count ({@code bench.threads}, "1,16"), call and stack, in {@code bench.rounds}
 * rounds (2) whose stack order rotates: a closed loop of that many threads (one shared client, as a
 * service shares one), {@code bench.warmupSeconds} (5) of warm-up with the same client, then a
 * window of at least {@code bench.seconds} (10), extended up to {@code bench.maxSeconds} (30) until
 * it holds the samples a p99 needs. Before the first cell the server and this JVM run {@code
 * bench.serverWarmupSeconds} (60) of every stack's calls. Per cell: requests/s, latency p50, p90
 * and p99 (each only with at least 20 samples beyond it, ADR 0183), the maximum, this JVM's CPU per
 * request (OperatingSystemMXBean: the client stack's threads and the load loop's, the same loop for
 * every stack) and the server's CPU per request (/proc via ProcessHandle). The report names the
 * commit and the load average before and after (ADR 0183). Run it alone on a quiet machine: about 9
 * minutes with the defaults, with every one of the three stacks in the build (stack (a) is found by
 * name, so a build without it measures (b) and (c) and says so).
 *
 * <pre>
 * ./mvnw -B -q -pl bench -am -DskipTests -Dspotless.check.skip=true -Djib.skip=true \
 *   package dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
 * java -Xms512m -Xmx2g -Dlogback.configurationFile=bench/logback-harness.xml \
 *   -Dfencepost.apps.dir=bench/target/apps \
 *   -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.fencepost.bench.HttpClientCost
 * </pre>
 */
public final class HttpClientCost {

  /** The lock starter's transport, reached by name: it is package-private in its module. */
  static final String OWN_TRANSPORT =
      "dev.fencepost.lock.client.impl.LockServerHttp$Http11Transport";

  static final String OWN_POOL = "dev.fencepost.lock.client.impl.LockServerHttp$ConnectionPool";

  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
  static final Duration RESPONSE_TIMEOUT = Duration.ofSeconds(5);

  /** The platform's shared stack (ADR 0197), where the build has it. */
  static final String SHIPPED_STACK = "dev.fencepost.http.OutboundHttp";

  /** A client reference the POSTs never use: the lookup answers an empty list. */
  static final String LOOKED_UP = "http-cost-never-paid";

  private HttpClientCost() {}

  /** A client stack under test. */
  enum Stack {
    OWN("a", "RestClient over the lock starter's Http11Transport"),
    JDK("b", "RestClient over the JDK HttpClient (JdkClientHttpRequestFactory)"),
    HC5(
        "c",
        "RestClient over Apache HttpClient 5 classic (HttpComponentsClientHttpRequestFactory)"),
    SHIPPED(
        "d",
        "RestClient over OutboundHttp as the callers use it (HC5 with buffered bodies and the"
            + " whole-exchange deadline, ADR 0197)");

    final String letter;
    final String description;

    Stack(String letter, String description) {
      this.letter = letter;
      this.description = description;
    }
  }

  /** A call the stacks make. */
  enum Call {
    GET("GET /rail/payments?clientReference=... (lookup, small JSON answer)"),
    POST("POST /rail/payments, a payment's small JSON body (201, small JSON answer)");

    final String description;

    Call(String description) {
      this.description = description;
    }
  }

  /** What a run does. */
  record Settings(
      List<Integer> threads,
      int rounds,
      Duration warmUp,
      Duration min,
      Duration max,
      Duration serverWarmUp,
      Path workDir) {

    static Settings fromProperties() {
      List<Integer> threads = new ArrayList<>();
      for (String t : System.getProperty("bench.threads", "1,16").split(",")) {
        threads.add(Integer.parseInt(t.trim()));
      }
      return new Settings(
          threads,
          Integer.getInteger("bench.rounds", 2),
          LockBench.seconds("bench.warmupSeconds", "5"),
          LockBench.seconds("bench.seconds", "10"),
          LockBench.seconds("bench.maxSeconds", "30"),
          LockBench.seconds("bench.serverWarmupSeconds", "60"),
          Path.of(System.getProperty("bench.workDir", "bench/target/http-client-cost")));
    }
  }

  /** One measured cell. */
  record Cell(
      int round,
      int threads,
      Call call,
      Stack stack,
      LoadGenerator.Result result,
      long clientCpuNanos,
      long serverCpuNanos) {

    double clientMicrosPerRequest() {
      return result.operations() == 0 ? Double.NaN : clientCpuNanos / 1e3 / result.operations();
    }

    double serverMicrosPerRequest() {
      return result.operations() == 0 ? Double.NaN : serverCpuNanos / 1e3 / result.operations();
    }
  }

  /** What a run produced. */
  record Outcome(
      String commit,
      String loadBefore,
      String loadAfter,
      List<Stack> stacks,
      List<String> missing,
      List<Cell> cells) {}

  public static void main(String[] args) throws Exception {
    Outcome outcome = run(Settings.fromProperties(), System.out::println);
    System.out.println();
    System.out.println(report(outcome));
    System.exit(0);
  }

  /** Starts the issuer and the rail stub, measures every cell, stops them; {@code log} hears it. */
  static Outcome run(Settings settings, Consumer<String> log) throws Exception {
    String commit = Provenance.commit();
    String loadBefore = Provenance.loadAverage();
    log.accept("commit " + commit + ", load before " + loadBefore);
    Files.createDirectories(settings.workDir());
    // The rail stub serves HTTPS with this run's certificate; this JVM's default SSLContext trusts
    // its CA (LocalTls.forThisJvm), and every stack below uses that default context.
    LocalTls.forThisJvm(Files.createTempDirectory(settings.workDir(), "tls-"));
    List<String> missing = new ArrayList<>();
    List<Stack> stacks = new ArrayList<>();
    for (Stack s : Stack.values()) {
      if (s == Stack.OWN && !ownTransportPresent()) {
        missing.add(
            "(a) " + s.description + ": not in this build (" + OWN_TRANSPORT + " not found)");
        continue;
      }
      if (s == Stack.SHIPPED && !classPresent(SHIPPED_STACK)) {
        missing.add(
            "(d) " + s.description + ": not in this build (" + SHIPPED_STACK + " not found)");
        continue;
      }
      stacks.add(s);
    }
    missing.forEach(log);
    List<Cell> cells = new ArrayList<>();
    try (LocalIdentity identity =
            LocalIdentity.start(
                Files.createTempDirectory(settings.workDir(), "identity-"), Duration.ofMinutes(3));
        JavaProcess stub = startStub(identity, settings.workDir())) {
      stub.awaitHealthy(Duration.ofSeconds(150), 3);
      BearerTokenSource proxy = identity.tokens(FencepostRole.RAIL_PROXY);
      BearerTokenSource operator = identity.tokens(FencepostRole.OPERATOR);
      // Fetched once here: every stack then finds the cached token (renewed long after a cell).
      proxy.currentToken();
      operator.currentToken();
      String base = stub.baseUrl();
      // Built after LocalTls.forThisJvm, so that its default SSLContext trusts the run's CA.
      HttpClient admin = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      if (!settings.serverWarmUp().isZero()) {
        log.accept(
            "warming the server and this JVM for " + settings.serverWarmUp().toSeconds() + " s");
        Duration each = settings.serverWarmUp().dividedBy(stacks.size() * Call.values().length);
        int threads = settings.threads().stream().mapToInt(Integer::intValue).max().orElse(1);
        for (Stack stack : stacks) {
          for (Call call : Call.values()) {
            clear(admin, base, operator);
            try (Client client = client(stack, base, proxy, threads)) {
              LoadGenerator.closedLoop(
                  threads,
                  Duration.ofNanos(each.toNanos()),
                  body(client, call, "w" + stack.letter));
            }
          }
        }
      }
      for (int round = 1; round <= settings.rounds(); round++) {
        for (int threads : settings.threads()) {
          for (Call call : Call.values()) {
            for (int i = 0; i < stacks.size(); i++) {
              Stack stack = stacks.get((i + round - 1) % stacks.size());
              clear(admin, base, operator);
              Cell cell = cell(settings, round, threads, call, stack, base, proxy, stub.pid());
              cells.add(cell);
              log.accept(line(cell));
            }
          }
        }
      }
    }
    String loadAfter = Provenance.loadAverage();
    log.accept("load after " + loadAfter);
    return new Outcome(commit, loadBefore, loadAfter, stacks, missing, cells);
  }

  private static Cell cell(
      Settings settings,
      int round,
      int threads,
      Call call,
      Stack stack,
      String base,
      BearerTokenSource proxy,
      long serverPid)
      throws Exception {
    long[] client = new long[2];
    long[] server = new long[2];
    LoadGenerator.Window window =
        new LoadGenerator.Window() {
          @Override
          public void opened() {
            client[0] = processCpu();
            server[0] = Environment.pidCpu(serverPid, false);
          }

          @Override
          public void closes(long nanos) {
            client[1] = processCpu();
            server[1] = Environment.pidCpu(serverPid, false);
          }
        };
    try (Client c = client(stack, base, proxy, threads)) {
      LoadGenerator.Result result =
          LoadGenerator.closedLoop(
              threads,
              new LoadGenerator.Timing(
                  settings.warmUp(),
                  settings.min(),
                  settings.max(),
                  recorded -> recorded >= Stats.P99_SAMPLES),
              w -> {},
              body(c, call, "r" + round + stack.letter + threads),
              window);
      return new Cell(
          round, threads, call, stack, result, client[1] - client[0], server[1] - server[0]);
    }
  }

  /** One request per iteration; anything but the expected status is an error of the cell. */
  private static LoadGenerator.Body body(Client client, Call call, String prefix) {
    return (worker, iteration) -> {
      long began = System.nanoTime();
      ResponseEntity<String> answer;
      if (call == Call.GET) {
        answer =
            client
                .rest
                .get()
                .uri("/rail/payments?clientReference={r}", LOOKED_UP)
                .accept(MediaType.APPLICATION_JSON)
                .retrieve()
                .toEntity(String.class);
        expect(answer, 200);
      } else {
        Map<String, Object> payment = new LinkedHashMap<>();
        payment.put("clientReference", "hc-" + prefix + "-" + worker + "-" + iteration);
        payment.put("amountMinor", 1250);
        payment.put("currency", "EUR");
        payment.put("beneficiaryRef", "beneficiary-1");
        answer =
            client
                .rest
                .post()
                .uri("/rail/payments")
                .contentType(MediaType.APPLICATION_JSON)
                .accept(MediaType.APPLICATION_JSON)
                .body(payment)
                .retrieve()
                .toEntity(String.class);
        expect(answer, 201);
      }
      return System.nanoTime() - began;
    };
  }

  private static void expect(ResponseEntity<String> answer, int status) {
    if (answer.getStatusCode().value() != status || answer.getBody() == null) {
      throw new IllegalStateException(
          "answered " + answer.getStatusCode().value() + " " + answer.getBody());
    }
  }

  /** A stack's RestClient and what must be closed after it. */
  record Client(RestClient rest, AutoCloseable resources, ClientHttpRequestFactory factory)
      implements AutoCloseable {
    @Override
    public void close() throws Exception {
      if (resources != null) {
        resources.close();
      }
    }
  }

  /** {@code stack}'s RestClient to {@code base}, configured alike: timeouts, token, no redirect. */
  static Client client(Stack stack, String base, BearerTokenSource tokens, int threads)
      throws Exception {
    ClientHttpRequestFactory factory;
    AutoCloseable resources = null;
    switch (stack) {
      case OWN -> factory = ownTransport();
      case SHIPPED -> {
        Client shipped = shipped(threads);
        factory = shipped.factory();
        resources = shipped.resources();
      }
      case JDK -> {
        HttpClient http =
            HttpClient.newBuilder()
                .connectTimeout(CONNECT_TIMEOUT)
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
        JdkClientHttpRequestFactory jdk = new JdkClientHttpRequestFactory(http);
        jdk.setReadTimeout(RESPONSE_TIMEOUT);
        jdk.enableCompression(false);
        // Java 17's HttpClient has no close: its selector thread ends once it is unreferenced.
        factory = jdk;
      }
      case HC5 -> {
        PoolingHttpClientConnectionManager connections =
            PoolingHttpClientConnectionManagerBuilder.create()
                .setTlsSocketStrategy(new DefaultClientTlsStrategy(SSLContext.getDefault()))
                .setDefaultSocketConfig(SocketConfig.custom().setTcpNoDelay(true).build())
                .setDefaultConnectionConfig(
                    ConnectionConfig.custom()
                        .setConnectTimeout(Timeout.of(CONNECT_TIMEOUT))
                        .setSocketTimeout(Timeout.of(RESPONSE_TIMEOUT))
                        .build())
                // HttpClient 5's defaults (5 per route) would make 16 threads queue for a
                // connection; every stack here gets one kept-alive connection per thread.
                .setMaxConnPerRoute(Math.max(threads, 64))
                .setMaxConnTotal(Math.max(threads, 64))
                .build();
        CloseableHttpClient http =
            HttpClients.custom()
                .setConnectionManager(connections)
                .disableAutomaticRetries()
                .disableRedirectHandling()
                .disableContentCompression()
                .disableCookieManagement()
                .disableAuthCaching()
                .build();
        HttpComponentsClientHttpRequestFactory hc5 =
            new HttpComponentsClientHttpRequestFactory(http);
        hc5.setReadTimeout(RESPONSE_TIMEOUT);
        factory = hc5;
        resources = http;
      }
      default -> throw new IllegalArgumentException(stack.name());
    }
    RestClient rest =
        RestClient.builder()
            .baseUrl(base)
            .requestFactory(factory)
            .requestInterceptor(tokens.interceptor())
            .build();
    return new Client(rest, resources, factory);
  }

  static boolean ownTransportPresent() {
    return classPresent(OWN_TRANSPORT);
  }

  static boolean classPresent(String name) {
    try {
      Class.forName(name);
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  /**
   * OutboundHttp's request factory, reached by name like (a), so that the harness builds and runs
   * both before the shared stack exists and after the lock starter's own transport is gone.
   */
  private static Client shipped(int threads) throws Exception {
    Class<?> type = Class.forName(SHIPPED_STACK);
    Object builder = type.getMethod("builder").invoke(null);
    Class<?> b = builder.getClass();
    b.getMethod("connectTimeout", Duration.class).invoke(builder, CONNECT_TIMEOUT);
    b.getMethod("responseTimeout", Duration.class).invoke(builder, RESPONSE_TIMEOUT);
    b.getMethod("maxConnections", int.class).invoke(builder, Math.max(threads, 64));
    AutoCloseable http = (AutoCloseable) b.getMethod("build").invoke(builder);
    ClientHttpRequestFactory factory =
        (ClientHttpRequestFactory) type.getMethod("requestFactory").invoke(http);
    return new Client(null, http, factory);
  }

  /**
   * The lock starter's transport as LockServerHttp builds it over https: its connection pool, the
   * connect and response timeouts, the JVM's default TLS socket factory.
   */
  private static ClientHttpRequestFactory ownTransport() throws Exception {
    Class<?> poolType = Class.forName(OWN_POOL);
    Constructor<?> pool = poolType.getDeclaredConstructor();
    pool.setAccessible(true);
    Constructor<?> transport =
        Class.forName(OWN_TRANSPORT)
            .getDeclaredConstructor(
                poolType, Duration.class, Duration.class, SSLSocketFactory.class);
    transport.setAccessible(true);
    return (ClientHttpRequestFactory)
        transport.newInstance(
            pool.newInstance(),
            CONNECT_TIMEOUT,
            RESPONSE_TIMEOUT,
            SSLContext.getDefault().getSocketFactory());
  }

  private static JavaProcess startStub(LocalIdentity identity, Path workDir) {
    // As a benchmarked server runs (Environment's lock servers): full compilation, a heap for the
    // load, and no per-payment log line on the measured path.
    return LocalIdentity.withEnvironment(
            JavaProcess.jar("rail-stub", App.RAIL_STUB.jar()).tls(LocalTls.forThisJvm()),
            identity.serviceEnvironment())
        .jvmArgs(List.of("-Xms256m"))
        .heap("1g")
        .httpPort(0)
        .log(workDir.resolve("rail-stub.log"))
        .args(
            List.of(
                "--spring.main.banner-mode=off",
                "--logging.structured.format.console=",
                "--logging.level.root=WARN"))
        .start();
  }

  /** Forgets the stub's movements (as an operator), so that no cell fills its book. */
  private static void clear(HttpClient admin, String base, BearerTokenSource operator)
      throws Exception {
    HttpResponse<Void> r =
        admin.send(
            HttpRequest.newBuilder(URI.create(base + "/rail/admin/movements"))
                .header("Authorization", "Bearer " + operator.currentToken())
                .timeout(Duration.ofSeconds(30))
                .DELETE()
                .build(),
            HttpResponse.BodyHandlers.discarding());
    if (r.statusCode() != 204) {
      throw new IllegalStateException("clearing the stub's movements answered " + r.statusCode());
    }
  }

  private static long processCpu() {
    return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static String line(Cell c) {
    LoadGenerator.Result r = c.result();
    return String.format(
        Locale.ROOT,
        "round %d, %2d threads, %-4s (%s): %.0f req/s, p50 %s, p90 %s, p99 %s, max %.3f ms,"
            + " client CPU %.1f us/req, server CPU %.1f us/req, %d errors%s",
        c.round(),
        c.threads(),
        c.call(),
        c.stack().letter,
        r.throughput(),
        Stats.quote(r.latency(), 50),
        Stats.quote(r.latency(), 90),
        Stats.quote(r.latency(), 99),
        r.latency().getMaxValue() / 1e6,
        c.clientMicrosPerRequest(),
        c.serverMicrosPerRequest(),
        r.errors(),
        r.firstError() == null ? "" : " (first: " + r.firstError() + ")");
  }

  /** The report: provenance, the stacks, and one row per cell (latencies in ms). */
  static String report(Outcome o) {
    StringBuilder s = new StringBuilder();
    s.append("## HTTP client stacks (HttpClientCost)\n\n");
    s.append("From commit `")
        .append(o.commit())
        .append("`; load average before the run: ")
        .append(o.loadBefore())
        .append(", after: ")
        .append(o.loadAfter())
        .append(". Java ")
        .append(System.getProperty("java.version"))
        .append(", ")
        .append(Runtime.getRuntime().availableProcessors())
        .append(" cores. Server: the rail stub over HTTPS, bearer token on every request.\n\n");
    for (Stack stack : o.stacks()) {
      s.append("- (").append(stack.letter).append(") ").append(stack.description).append('\n');
    }
    for (String m : o.missing()) {
      s.append("- ").append(m).append('\n');
    }
    for (Call call : Call.values()) {
      s.append("- ").append(call).append(": ").append(call.description).append('\n');
    }
    s.append(
        "\nPercentiles need 20 samples beyond them (ADR 0183). Client CPU: this JVM's (the stack's"
            + " threads plus the same load loop for every stack); server CPU: the stub's process.\n\n");
    s.append(
        "| round | threads | call | stack | requests/s | p50 ms | p90 ms | p99 ms | max ms |"
            + " client CPU µs/req | server CPU µs/req | requests | errors |\n");
    s.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    Map<String, List<Cell>> ordered = new LinkedHashMap<>();
    for (Cell c : o.cells()) {
      ordered
          .computeIfAbsent(c.threads() + "/" + c.call() + "/" + c.round(), k -> new ArrayList<>())
          .add(c);
    }
    for (List<Cell> group : ordered.values()) {
      group.sort((x, y) -> x.stack().compareTo(y.stack()));
      for (Cell c : group) {
        Histogram h = c.result().latency();
        s.append(
            String.format(
                Locale.ROOT,
                "| %d | %d | %s | (%s) | %.0f | %s | %s | %s | %.3f | %.1f | %.1f | %d | %d |%n",
                c.round(),
                c.threads(),
                c.call(),
                c.stack().letter,
                c.result().throughput(),
                Stats.quote(h, 50),
                Stats.quote(h, 90),
                Stats.quote(h, 99),
                h.getMaxValue() / 1e6,
                c.clientMicrosPerRequest(),
                c.serverMicrosPerRequest(),
                c.result().operations(),
                c.result().errors()));
      }
    }
    return s.toString();
  }
}
