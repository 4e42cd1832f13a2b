package dev.fencepost.lockserver.http;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.fencepost.lockserver.LockServerApplication;
import dev.fencepost.lockserver.TestIdentities;
import dev.fencepost.lockserver.backend.postgres.PostgresLockServer;
import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.logging.CapturedEvents;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import dev.fencepost.testsupport.security.TestIssuer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The keepalive stream (ADR 0224) over a real port against a real lockdb: a frame holding a
 * sequence number keeps the session alive and is answered with that number and the new expiry; the
 * upgrade is refused as a keepalive would be; a bad frame closes the stream and keeps nothing
 * alive; a stream ends with its session and with the token it was opened with.
 */
class KeepAliveStreamTest {

  @RegisterExtension
  static EmbeddedPostgresExtension lockdb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/lockdb/db.changelog-master.yaml");

  private static final JsonMapper JSON = JsonMapper.builder().build();

  static ConfigurableApplicationContext server;
  static String base;
  static LockServerClient worker;

  @RegisterExtension final CapturedEvents events = new CapturedEvents();

  @BeforeAll
  static void start() {
    // Room for the three streams the capacity test opens, no more: no other test holds more than
    // two at once, and one more may still be closing when it starts.
    server = PostgresLockServer.start(lockdb, "--fencepost.lock.max-keepalive-streams=3");
    int port = ((WebServerApplicationContext) server).getWebServer().getPort();
    base = "127.0.0.1:" + port;
    worker = LockServerClient.of(server).as(workerTokens());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void aKeepaliveFrameExtendsTheSessionAndIsAnsweredWithItsSequenceAndTheNewExpiry()
      throws Exception {
    String session = worker.newSession("w");
    OffsetDateTime before = sessionExpiresAt(session);
    Stream stream = Stream.open(session, workerToken());

    stream.send("7");
    JsonNode answer = stream.answer();

    assertThat(answer.get("seq").asLong()).isEqualTo(7);
    assertThat(answer.get("sessionId").asString()).isEqualTo(session);
    assertThat(answer.get("ttlMillis").asLong()).isEqualTo(60_000);
    OffsetDateTime after = sessionExpiresAt(session);
    assertThat(after).isAfter(before);
    assertThat(Instant.parse(answer.get("expiresAt").asString())).isEqualTo(after.toInstant());

    stream.send("8");
    assertThat(stream.answer().get("seq").asLong()).isEqualTo(8);
    assertThat(sessionExpiresAt(session)).isAfterOrEqualTo(after);
    stream.ws().sendClose(WebSocket.NORMAL_CLOSURE, "done").get(5, SECONDS);
  }

  @Test
  void framesSentWithoutWaitingForTheirAnswersAreAnsweredOneAtATimeInOrder() throws Exception {
    // The starter waits for each answer; a client that does not is answered all the same, one
    // keepalive of the stream at a time: its next frame waits for the answer before it.
    String session = worker.newSession("w");
    Stream stream = Stream.open(session, workerToken());

    for (int seq = 1; seq <= 5; seq++) {
      stream.send(Integer.toString(seq));
    }

    for (int seq = 1; seq <= 5; seq++) {
      assertThat(stream.answer().get("seq").asLong()).isEqualTo(seq);
    }
    stream.ws().sendClose(WebSocket.NORMAL_CLOSURE, "done").get(5, SECONDS);
  }

  @Test
  void anAnswerLongerThanTheStreamsFrameBufferArrivesWhole() throws Exception {
    // The longest owner there is, in three-byte characters: an answer of over 600 bytes, which
    // the server sends in more than one frame when its buffers are the 512 bytes it asks for.
    String owner = "払".repeat(200);
    String session = worker.newSession(owner);
    assertThat(server.getBean(KeepAliveStreams.class).frameBufferBytes())
        .as("the frame buffer LockServerApplication asks Tomcat for")
        .isEqualTo(LockServerApplication.WEBSOCKET_BUFFER_BYTES);
    Stream stream = Stream.open(session, workerToken());

    stream.send("1");
    String text = stream.texts().poll(10, SECONDS);

    assertThat(text.getBytes(StandardCharsets.UTF_8).length)
        .isGreaterThan(LockServerApplication.WEBSOCKET_BUFFER_BYTES);
    JsonNode answer = JSON.readTree(text);
    assertThat(answer.get("seq").asLong()).isEqualTo(1);
    assertThat(answer.get("owner").asString()).isEqualTo(owner);
    stream.ws().sendClose(WebSocket.NORMAL_CLOSURE, "done").get(5, SECONDS);
  }

  @Test
  void theUpgradeIsRefusedAsAKeepaliveWouldBeAndOpensNoStream() throws Exception {
    String session = worker.newSession("w");

    assertThat(handshakeStatus(session, null)).as("no token").isEqualTo(401);
    assertThat(handshakeStatus(session, "not-a-jwt")).as("not a token").isEqualTo(401);
    assertThat(
            handshakeStatus(
                session, TestIdentities.ISSUER.token("rail-proxy", FencepostRole.RAIL_PROXY)))
        .as("without a lock holder's role")
        .isEqualTo(403);
    assertThat(
            handshakeStatus(
                session, TestIdentities.ISSUER.token("worker-2", FencepostRole.PAYOUT_WORKER)))
        .as("another holder's session")
        .isEqualTo(403);
    assertThat(handshakeStatus("00000000-0000-0000-0000-000000000000", workerToken()))
        .as("no such session")
        .isEqualTo(404);
    assertThat(openStreams()).isZero();
  }

  @Test
  void aPlainRequestWithoutTheUpgradeIsABadRequestThatChangesNothing() throws Exception {
    String session = worker.newSession("w");
    OffsetDateTime before = sessionExpiresAt(session);

    LockServerClient.Response response =
        worker.get("/v1/sessions/" + session + "/keepalive-stream");

    assertThat(response.status()).isEqualTo(400);
    assertThat(response.code()).isEqualTo("INVALID_REQUEST");
    assertThat(sessionExpiresAt(session)).isEqualTo(before);
  }

  @ParameterizedTest(name = "[{index}] \"{0}\"")
  @ValueSource(strings = {"", "abc", "-1", "1.5", " 1", "1 ", "0x10", "1234567890123456789", "١"})
  void aFrameThatIsNotASequenceNumberClosesTheStreamAndKeepsNothingAlive(String frame)
      throws Exception {
    String session = worker.newSession("w");
    OffsetDateTime before = sessionExpiresAt(session);
    Stream stream = Stream.open(session, workerToken());

    stream.send(frame);

    assertThat(stream.closeCode()).isEqualTo(1003);
    assertThat(stream.texts()).isEmpty();
    assertThat(sessionExpiresAt(session)).isEqualTo(before);
    assertThat(events.named("lock.session.keepalive_stream_rejected")).isNotEmpty();
  }

  @Test
  void aFrameOverItsSizeOrInBinaryClosesTheStreamAndKeepsNothingAlive() throws Exception {
    String session = worker.newSession("w");
    OffsetDateTime before = sessionExpiresAt(session);

    Stream tooLong = Stream.open(session, workerToken());
    tooLong.send("1".repeat(KeepAliveStreams.MAX_FRAME_CHARS + 1));
    assertThat(tooLong.closeCode()).isEqualTo(1009);

    Stream binary = Stream.open(session, workerToken());
    binary.ws().sendBinary(ByteBuffer.wrap(new byte[] {'1'}), true).get(5, SECONDS);
    assertThat(binary.closeCode()).isEqualTo(1003);

    assertThat(sessionExpiresAt(session)).isEqualTo(before);
  }

  @Test
  void aSessionThatIsGoneIsAnsweredSessionNotFoundAndItsStreamClosed() throws Exception {
    String session = worker.newSession("w");
    Stream stream = Stream.open(session, workerToken());
    assertThat(worker.delete("/v1/sessions/" + session).status()).isEqualTo(204);

    stream.send("1");

    JsonNode answer = stream.answer();
    assertThat(answer.get("seq").asLong()).isEqualTo(1);
    assertThat(answer.get("code").asString()).isEqualTo("SESSION_NOT_FOUND");
    assertThat(stream.closeCode()).isEqualTo(KeepAliveStreams.SESSION_NOT_FOUND);
  }

  @Test
  void theStreamClosesWhenTheTokenItWasOpenedWithExpires() throws Exception {
    String session = worker.newSession("w");
    String shortLived =
        TestIdentities.ISSUER.mint(
            TestIdentities.CLIENT,
            TestIssuer.AUDIENCE,
            Instant.now(),
            Duration.ofSeconds(3),
            FencepostRole.PAYOUT_WORKER);
    Stream stream = Stream.open(session, shortLived);
    stream.send("1");
    assertThat(stream.answer().get("seq").asLong()).isEqualTo(1);

    assertThat(stream.closeCode()).isEqualTo(KeepAliveStreams.TOKEN_EXPIRED);
  }

  @Test
  void aNewerStreamOfTheSessionReplacesTheOlderOne() throws Exception {
    String session = worker.newSession("w");
    Stream older = Stream.open(session, workerToken());
    Stream newer = Stream.open(session, workerToken());

    assertThat(older.closeCode()).isEqualTo(KeepAliveStreams.REPLACED);
    newer.send("1");
    assertThat(newer.answer().get("seq").asLong()).isEqualTo(1);
    newer.ws().sendClose(WebSocket.NORMAL_CLOSURE, "done").get(5, SECONDS);
    await().atMost(Duration.ofSeconds(10)).until(() -> openStreams() == 0);
  }

  @Test
  void beyondTheMaximumAnUpgradeIsRefusedWith429AndOpensNothing() throws Exception {
    await().atMost(Duration.ofSeconds(10)).until(() -> openStreams() == 0);
    Stream first = Stream.open(worker.newSession("w"), workerToken());
    Stream second = Stream.open(worker.newSession("w"), workerToken());
    Stream third = Stream.open(worker.newSession("w"), workerToken());
    String fourth = worker.newSession("w");

    assertThat(handshakeStatus(fourth, workerToken())).isEqualTo(429);
    assertThat(openStreams()).isEqualTo(3);
    assertThat(events.named("lock.capacity_rejected"))
        .anySatisfy(e -> assertThat(e).containsEntry("limit", "keepalive_streams"));

    first.ws().sendClose(WebSocket.NORMAL_CLOSURE, "done").get(5, SECONDS);
    await().atMost(Duration.ofSeconds(10)).until(() -> openStreams() == 2);
    Stream again = Stream.open(fourth, workerToken());
    again.send("1");
    assertThat(again.answer().get("seq").asLong()).isEqualTo(1);
    for (Stream s : java.util.List.of(second, third, again)) {
      s.ws().sendClose(WebSocket.NORMAL_CLOSURE, "done").get(5, SECONDS);
    }
  }

  @Test
  void openStreamsAreCountedWithoutAnIdentifierInTheMetric() throws Exception {
    String session = worker.newSession("w");
    int before = openStreams();
    Stream stream = Stream.open(session, workerToken());
    await().atMost(Duration.ofSeconds(10)).until(() -> openStreams() == before + 1);
    stream.ws().sendClose(WebSocket.NORMAL_CLOSURE, "done").get(5, SECONDS);
    await().atMost(Duration.ofSeconds(10)).until(() -> openStreams() == before);
  }

  @Test
  void aStreamThatClosesLeavesNoTokenExpiryBehind() throws Exception {
    KeepAliveStreams streams = server.getBean(KeepAliveStreams.class);
    String session = worker.newSession("w");
    Stream stream = Stream.open(session, workerToken());
    stream.send("1");
    stream.answer();
    assertThat(streams.scheduledExpiries()).as("the open stream's token expiry").isPositive();
    int before = openStreams();

    stream.ws().sendClose(WebSocket.NORMAL_CLOSURE, "done").get(5, SECONDS);
    await().atMost(Duration.ofSeconds(10)).until(() -> openStreams() == before - 1);

    // At most one expiry per open stream: a closed one's is gone, not kept until its token ends.
    assertThat(streams.scheduledExpiries()).isLessThanOrEqualTo(openStreams());
  }

  private static int openStreams() {
    io.micrometer.core.instrument.MeterRegistry meters =
        server.getBean(io.micrometer.core.instrument.MeterRegistry.class);
    io.micrometer.core.instrument.Gauge gauge =
        meters.find("fencepost.lock.keepalive.streams").gauge();
    assertThat(gauge.getId().getTags()).isEmpty();
    return (int) gauge.value();
  }

  private static dev.fencepost.security.BearerTokenSource workerTokens() {
    return TestIdentities.client();
  }

  private static String workerToken() {
    return TestIdentities.client().currentToken();
  }

  /** The handshake's status, or 101 if it opened a stream (closed again at once). */
  private static int handshakeStatus(String session, String token) {
    Throwable failure = catchThrowable(() -> Stream.open(session, token).ws().abort());
    if (failure == null) {
      return 101;
    }
    Throwable cause = failure instanceof ExecutionException ? failure.getCause() : failure;
    assertThat(cause).isInstanceOf(WebSocketHandshakeException.class);
    return ((WebSocketHandshakeException) cause).getResponse().statusCode();
  }

  private static OffsetDateTime sessionExpiresAt(String session) {
    return JdbcClient.create(lockdb.dataSource())
        .sql("SELECT expires_at FROM lock_session WHERE id = ?::uuid")
        .param(session)
        .query(OffsetDateTime.class)
        .single();
  }

  /** A client end of one stream: the texts it was sent and how it was closed. */
  record Stream(WebSocket ws, BlockingQueue<String> texts, CompletableFuture<Integer> closed) {

    static Stream open(String session, String token) throws Exception {
      return open(base, session, token);
    }

    /** A stream to the server at {@code base} ({@code host:port}). */
    static Stream open(String base, String session, String token) throws Exception {
      BlockingQueue<String> texts = new LinkedBlockingQueue<>();
      CompletableFuture<Integer> closed = new CompletableFuture<>();
      WebSocket.Listener listener =
          new WebSocket.Listener() {
            private final StringBuilder partial = new StringBuilder();

            @Override
            public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
              partial.append(data);
              if (last) {
                texts.add(partial.toString());
                partial.setLength(0);
              }
              ws.request(1);
              return null;
            }

            @Override
            public CompletionStage<?> onClose(WebSocket ws, int code, String reason) {
              closed.complete(code);
              return null;
            }

            @Override
            public void onError(WebSocket ws, Throwable error) {
              closed.completeExceptionally(error);
            }
          };
      WebSocket.Builder builder =
          HttpClient.newHttpClient().newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5));
      if (token != null) {
        builder.header("Authorization", "Bearer " + token);
      }
      WebSocket ws =
          builder
              .buildAsync(
                  URI.create("ws://" + base + "/v1/sessions/" + session + "/keepalive-stream"),
                  listener)
              .get(10, SECONDS);
      return new Stream(ws, texts, closed);
    }

    void send(String frame) throws Exception {
      ws.sendText(frame, true).get(5, SECONDS);
    }

    JsonNode answer() throws Exception {
      String text = texts.poll(10, SECONDS);
      assertThat(text).as("an answer").isNotNull();
      return JSON.readTree(text);
    }

    int closeCode() throws Exception {
      return closed.get(10, SECONDS);
    }
  }
}
