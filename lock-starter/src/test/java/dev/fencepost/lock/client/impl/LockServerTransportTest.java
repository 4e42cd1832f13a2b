package dev.fencepost.lock.client.impl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencepost.http.OutboundHttp;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lock.client.impl.ScriptedHttpServer.Received;
import dev.fencepost.lock.client.impl.ScriptedHttpServer.Reply;
import dev.fencepost.lock.client.testing.LockServerStubs;
import dev.fencepost.lock.client.testing.TestSettings;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.HttpMethod;
import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.ClientHttpResponse;

/**
 * The starter's HTTP transport, the platform's one client stack (ADR 0197: {@link OutboundHttp},
 * Apache HttpClient 5 under RestClient, as {@link LockServerHttp} configures it), against a
 * scripted loopback peer that counts connections and requests: keep-alive and its limits, body
 * framing, the response timeout, refusal of malformed or oversized answers, and the request bytes.
 * The transport never re-sends a request (ADR 0022 leaves retries to the caller's bounded policy),
 * so every count here is exact. These were the hand-written transport's tests (ADR 0092); where
 * they specified how that transport parsed, they now specify what the caller sees.
 */
class LockServerTransportTest {

  private static final SessionId SESSION = SessionId.of("s-1");
  private static final String SESSION_JSON = LockServerStubs.session("s-1", 2000);

  private ScriptedHttpServer server;
  private OutboundHttp http;
  private ClientHttpRequestFactory transport;

  @BeforeEach
  void start() throws IOException {
    server = new ScriptedHttpServer();
    // As LockServerHttp builds it; a short budget, so that an answer that can never complete ends
    // soon after the peer stops sending.
    http =
        OutboundHttp.builder()
            .connectTimeout(Duration.ofSeconds(2))
            .responseTimeout(Duration.ofSeconds(1))
            .maxResponseBytes(LockServerHttp.MAX_RESPONSE_BYTES)
            .build();
    transport = http.requestFactory();
  }

  @AfterEach
  void stop() throws IOException {
    http.close();
    server.close();
  }

  @Test
  void aKeptAliveConnectionCarriesConsecutiveRequests() throws IOException {
    server.then(Reply.ok("{\"n\":1}")).then(Reply.ok("{\"n\":2}"));

    assertThat(bodyOf(get("/a"))).isEqualTo("{\"n\":1}");
    assertThat(bodyOf(get("/b"))).isEqualTo("{\"n\":2}");

    assertThat(server.accepted).hasValue(1);
    assertThat(server.received).extracting(Received::connection).containsExactly(1, 1);
  }

  @Test
  void anAnswerWithConnectionCloseIsNotPooled() throws IOException {
    server
        .then(Reply.raw("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"))
        .then(Reply.ok("{}"));

    assertThat(bodyOf(get("/a"))).isEqualTo("ok");
    assertThat(bodyOf(get("/b"))).isEqualTo("{}");

    assertThat(server.accepted).hasValue(2);
    assertThat(server.received).extracting(Received::connection).containsExactly(1, 2);
  }

  @Test
  void closeAmongOtherConnectionTokensIsNotPooled() throws IOException {
    server
        .then(
            Reply.raw(
                "HTTP/1.1 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 2\r\n\r\nok"))
        .then(Reply.ok("{}"));

    assertThat(bodyOf(get("/a"))).isEqualTo("ok");
    assertThat(bodyOf(get("/b"))).isEqualTo("{}");

    assertThat(server.received).extracting(Received::connection).containsExactly(1, 2);
  }

  @Test
  void anIdleConnectionTheServerClosedFailsAsUnreachableAndIsNotResent() {
    LockServerHttp http = lockServerHttp(Duration.ofSeconds(5));
    // Every request that reaches the server is answered, so a re-send would turn the failure below
    // into a success and show up in the counts.
    server
        .then(Reply.ok(SESSION_JSON).thenClose())
        .then(Reply.ok(SESSION_JSON))
        .then(Reply.ok(SESSION_JSON));

    assertThat(http.keepAlive(SESSION).sessionId()).isEqualTo(SESSION);
    await().until(() -> server.closedByServer.get() == 1);

    assertThatThrownBy(() -> http.keepAlive(SESSION))
        .isInstanceOf(LockServerUnreachableException.class);
    assertThat(server.accepted).hasValue(1);
    assertThat(server.received).hasSize(1);

    // The caller's own retry opens a new connection; the dead one was dropped, not pooled.
    assertThat(http.keepAlive(SESSION).sessionId()).isEqualTo(SESSION);
    assertThat(server.accepted).hasValue(2);
    assertThat(server.received).extracting(Received::connection).containsExactly(1, 2);
    http.close();
  }

  @Test
  void chunkedAndContentLengthBodiesAreReadExactlyAndTheConnectionStaysUsable() throws IOException {
    server
        .then(
            Reply.raw(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5;ext=1\r\n{\"a\":\r\n"
                    + "A\r\n\"chunked\"}\r\n"
                    + "0\r\nX-Trailer: t\r\n\r\n"))
        .then(Reply.raw("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"b\":\"len\"}"))
        .then(Reply.ok("{}"));

    assertThat(bodyOf(get("/chunked"))).isEqualTo("{\"a\":\"chunked\"}");
    assertThat(bodyOf(get("/length"))).isEqualTo("{\"b\":\"len\"}");
    // A third answer on the same connection parses only if both bodies were consumed exactly.
    assertThat(bodyOf(get("/next"))).isEqualTo("{}");

    assertThat(server.accepted).hasValue(1);
  }

  @Test
  void noContentAndHeadAnswersHaveAnEmptyBodyWithoutFraming() throws IOException {
    server
        .then(Reply.raw("HTTP/1.1 204 No Content\r\n\r\n"))
        // A HEAD answer announces the length of a body it does not send.
        .then(Reply.raw("HTTP/1.1 200 OK\r\nContent-Length: 42\r\n\r\n"))
        .then(Reply.ok("{}"));

    try (ClientHttpResponse noContent = send(HttpMethod.DELETE, "/v1/sessions/s-1", null)) {
      assertThat(noContent.getStatusCode().value()).isEqualTo(204);
      assertThat(noContent.getBody().readAllBytes()).isEmpty();
    }
    try (ClientHttpResponse head = send(HttpMethod.HEAD, "/v1/health", null)) {
      assertThat(head.getStatusCode().value()).isEqualTo(200);
      assertThat(head.getBody().readAllBytes()).isEmpty();
    }
    assertThat(bodyOf(get("/next"))).isEqualTo("{}");

    assertThat(server.accepted).hasValue(1);
  }

  @Test
  void anAnswerThatNeverArrivesEndsWithTheResponseTimeoutAndTheConnectionIsDropped() {
    LockServerHttp http = lockServerHttp(Duration.ofMillis(300));
    server.then(Reply.silence()).then(Reply.ok(SESSION_JSON));

    assertThatThrownBy(() -> http.keepAlive(SESSION))
        .isInstanceOf(LockServerUnreachableException.class);
    await().until(() -> server.closedByClient.get() == 1);

    assertThat(http.keepAlive(SESSION).sessionId()).isEqualTo(SESSION);
    assertThat(server.accepted).hasValue(2);
    assertThat(server.received).extracting(Received::connection).containsExactly(1, 2);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "HTTP/1.1 OK 200\r\nContent-Length: 0\r\n\r\n",
        "HTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
        "<html>not http</html>\r\n\r\n",
        "HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 20 OK\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 -200 OK\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: lots\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\nx\r\n",
      })
  void aMalformedAnswerFailsTheCallWhichIsNotResentAndTheNextCallIsAnswered(String answer) {
    LockServerHttp http = lockServerHttp(Duration.ofSeconds(1));
    server.then(Reply.raw(answer)).then(Reply.ok(SESSION_JSON));

    // Fails closed: a malformed answer is never a session, whatever the parser made of it.
    assertThatThrownBy(() -> http.keepAlive(SESSION)).isInstanceOf(RuntimeException.class);

    assertThat(http.keepAlive(SESSION).sessionId()).isEqualTo(SESSION);
    assertThat(server.received).hasSize(2);
    http.close();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        // Announced too large: refused before any of it is read.
        "HTTP/1.1 200 OK\r\nContent-Length: 2097152\r\n\r\n",
        // A chunk size that would overflow the running total once added to it.
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n7fffffff\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n100001\r\n",
      })
  void anAnswerOverTheSizeBoundIsAnErrorNotAHang(String answer) throws IOException {
    server.then(Reply.raw(answer)).then(Reply.ok("{}"));

    // Announced too large: refused at once; a chunk that never comes: bounded by the deadline.
    assertThatThrownBy(() -> bodyOf(get("/a"))).isInstanceOf(IOException.class);
    await().until(() -> server.closedByClient.get() == 1);

    assertThat(bodyOf(get("/b"))).isEqualTo("{}");
    assertThat(server.accepted).hasValue(2);
  }

  @Test
  void aBodyThatGrowsPastTheSizeBoundIsAnError() throws IOException {
    String big = "x".repeat((int) LockServerHttp.MAX_RESPONSE_BYTES + 1);
    server
        .then(
            Reply.raw(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + Integer.toHexString(big.length())
                    + "\r\n"
                    + big
                    + "\r\n0\r\n\r\n"))
        .then(Reply.ok("{}"));

    assertThatThrownBy(() -> bodyOf(get("/a"))).isInstanceOf(IOException.class);
    await().until(() -> server.closedByClient.get() == 1);
    assertThat(bodyOf(get("/b"))).isEqualTo("{}");
  }

  @Test
  void aHeadOverTheSizeBoundIsAnError() throws IOException {
    StringBuilder head = new StringBuilder("HTTP/1.1 200 OK\r\n");
    String filler = "x".repeat(1000);
    for (int i = 0; i < 200; i++) {
      head.append("X-Filler-").append(i).append(": ").append(filler).append("\r\n");
    }
    head.append("Content-Length: 0\r\n\r\n");
    server.then(Reply.raw(head.toString())).then(Reply.ok("{}"));

    assertThatThrownBy(() -> bodyOf(get("/a"))).isInstanceOf(IOException.class);
    await().until(() -> server.closedByClient.get() == 1);
    assertThat(bodyOf(get("/b"))).isEqualTo("{}");
  }

  @Test
  void anAnswerWithoutFramingIsReadUntilCloseAndNotPooled() throws IOException {
    server.then(Reply.raw("HTTP/1.1 200 OK\r\n\r\n{\"until\":\"close\"}").thenClose());
    server.then(Reply.ok("{}"));

    assertThat(bodyOf(get("/a"))).isEqualTo("{\"until\":\"close\"}");
    assertThat(bodyOf(get("/b"))).isEqualTo("{}");
    assertThat(server.accepted).hasValue(2);
  }

  @Test
  void aRequestCarriesMethodPathQueryHostLengthHeadersAndBodyAsSent() throws IOException {
    byte[] body = "{\"owner\":\"zoë\",\"ttlMillis\":2000}".getBytes(StandardCharsets.UTF_8);
    server.then(Reply.ok("{}")).then(Reply.ok("{}")).then(Reply.ok("{}"));

    ClientHttpRequest post =
        transport.createRequest(server.uri("/lock/v1/sessions?dry=true&x=a%20b"), HttpMethod.POST);
    post.getHeaders().add("Content-Type", "application/json");
    post.getHeaders().add("X-Trace", "t-1");
    post.getHeaders().add("X-Trace", "t-2");
    post.getBody().write(body);
    post.execute().close();
    send(HttpMethod.POST, "/v1/sessions/s-1/keepalive", null).close();
    get("/v1/health").close();

    Received sent = server.received.get(0);
    assertThat(sent.requestLine()).isEqualTo("POST /lock/v1/sessions?dry=true&x=a%20b HTTP/1.1");
    assertThat(sent.header("Host")).containsExactly("127.0.0.1:" + server.port());
    assertThat(sent.header("Content-Length")).containsExactly(String.valueOf(body.length));
    assertThat(sent.header("Content-Type")).containsExactly("application/json");
    assertThat(sent.header("X-Trace")).containsExactly("t-1", "t-2");
    assertThat(sent.body()).isEqualTo(body);

    Received emptyPost = server.received.get(1);
    assertThat(emptyPost.requestLine()).isEqualTo("POST /v1/sessions/s-1/keepalive HTTP/1.1");
    assertThat(emptyPost.header("Content-Length")).containsExactly("0");
    assertThat(emptyPost.body()).isEmpty();

    Received plainGet = server.received.get(2);
    assertThat(plainGet.requestLine()).isEqualTo("GET /v1/health HTTP/1.1");
    assertThat(plainGet.header("Content-Length")).isEmpty();
    assertThat(plainGet.header("Host")).containsExactly("127.0.0.1:" + server.port());
  }

  @Test
  void theLockClientsRequestsGoOutAsTheContractSays() {
    LockServerHttp http = lockServerHttp(Duration.ofSeconds(5));
    server.then(Reply.ok(SESSION_JSON));

    http.createSession("zoë", Duration.ofSeconds(2));

    Received sent = server.received.get(0);
    assertThat(sent.requestLine()).isEqualTo("POST /v1/sessions HTTP/1.1");
    assertThat(sent.header("Content-Type").get(0)).startsWith("application/json");
    assertThat(sent.header("Accept")).containsExactly("application/json, application/problem+json");
    assertThat(new String(sent.body(), StandardCharsets.UTF_8))
        .isEqualTo("{\"owner\":\"zoë\",\"ttlMillis\":2000}");
    assertThat(sent.header("Content-Length")).containsExactly(String.valueOf(sent.body().length));
  }

  @Test
  void aClientThatOnlyHeartbeatsSendsEveryHeartbeatOnOneConnection() {
    // ADR 0225: at the default TTL of 15 s a heartbeat comes every 5 s. An idle connection kept
    // only 4 s was gone by then, and every keepalive opened a new TCP and TLS connection.
    String session = LockServerStubs.session("s-1", 15_000);
    for (int i = 0; i < 6; i++) {
      server.then(Reply.ok(session));
    }
    DefaultLockClient client =
        TestSettings.against(server.baseUrl())
            .ttl(Duration.ofSeconds(15))
            .timeouts(Duration.ofSeconds(2), Duration.ofSeconds(2))
            .keepAliveStream(false)
            .startClient();
    try {
      // The session at the first tick, then a keepalive on each of the next two, 5 s apart.
      await().atMost(Duration.ofSeconds(30)).until(() -> server.received.size() >= 3);
    } finally {
      client.close();
    }
    assertThat(server.received.subList(0, 3))
        .extracting(Received::requestLine)
        .containsExactly(
            "POST /v1/sessions HTTP/1.1",
            "POST /v1/sessions/s-1/keepalive HTTP/1.1",
            "POST /v1/sessions/s-1/keepalive HTTP/1.1");
    assertThat(server.received.subList(0, 3))
        .extracting(Received::connection)
        .containsExactly(1, 1, 1);
  }

  private LockServerHttp lockServerHttp(Duration responseTimeout) {
    return new LockServerHttp(
        TestSettings.against(server.baseUrl())
            .ttl(Duration.ofSeconds(30))
            .timeouts(Duration.ofSeconds(2), responseTimeout)
            .build());
  }

  private ClientHttpResponse get(String path) throws IOException {
    return send(HttpMethod.GET, path, null);
  }

  private ClientHttpResponse send(HttpMethod method, String path, byte[] body) throws IOException {
    ClientHttpRequest request = transport.createRequest(uri(path), method);
    if (body != null) {
      request.getBody().write(body);
    }
    return request.execute();
  }

  private URI uri(String path) {
    return server.uri(path);
  }

  private static String bodyOf(ClientHttpResponse response) throws IOException {
    try (response) {
      return new String(response.getBody().readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
