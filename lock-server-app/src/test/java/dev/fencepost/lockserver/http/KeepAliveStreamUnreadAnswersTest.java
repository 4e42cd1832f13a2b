package dev.fencepost.lockserver.http;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.lockserver.TestIdentities;
import dev.fencepost.lockserver.backend.postgres.PostgresLockServer;
import dev.fencepost.lockserver.http.KeepAliveStreamTest.Stream;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A client that sends keepalives and leaves their answers unread costs the server a bounded wait
 * (ADR 0229): once its connection's socket buffers are full, the answer being written waits at most
 * {@link KeepAliveStreams#ANSWER_SEND_TIMEOUT}, and then the server closes the stream, where
 * Tomcat's default would have waited 20 s. Other streams go on being answered.
 */
class KeepAliveStreamUnreadAnswersTest {

  @RegisterExtension
  static EmbeddedPostgresExtension lockdb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/lockdb/db.changelog-master.yaml");

  static ConfigurableApplicationContext server;
  static String base;
  static LockServerClient worker;

  @BeforeAll
  static void start() {
    // No gather window: each keepalive runs at once, so the unread answers pile up fast.
    server = PostgresLockServer.start(lockdb, "--fencepost.lock.postgres.keepalive-gather=0ms");
    base = "127.0.0.1:" + ((WebServerApplicationContext) server).getWebServer().getPort();
    worker = LockServerClient.of(server).as(TestIdentities.client());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void aStreamWhoseClientLeavesItsAnswersUnreadIsClosedWithinTheSendTimeout() throws Exception {
    // Long answers (600 bytes and more) fill the socket buffers after a few hundred keepalives.
    String unreadSession = worker.newSession("払".repeat(200));
    Stream other = Stream.open(base, worker.newSession("other"), token());
    WebSocket unread = openWithoutReading(unreadSession);
    await().atMost(Duration.ofSeconds(10)).until(() -> openStreams() == 2);
    AtomicLong sent = new AtomicLong();
    ExecutorService sender = Executors.newSingleThreadExecutor();
    try {
      sender.submit(
          () -> {
            // As fast as the connection takes them; ends when the server closes it.
            for (long seq = 1; ; seq++) {
              unread.sendText(Long.toString(seq), true).get(60, SECONDS);
              sent.set(seq);
            }
          });

      // Tomcat's default would wait 20 s for the unread client before closing it.
      await()
          .atMost(Duration.ofSeconds(12))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> openStreams() == 1);

      assertThat(sent.get()).as("keepalives the unread client got in").isGreaterThan(100);
      other.send("1");
      assertThat(other.answer().get("seq").asLong()).isEqualTo(1);
    } finally {
      sender.shutdownNow();
      unread.abort();
      other.ws().abort();
    }
  }

  /** A stream whose client never asks for a message, so nothing it is sent is ever read. */
  private static WebSocket openWithoutReading(String session) throws Exception {
    WebSocket.Listener listener =
        new WebSocket.Listener() {
          @Override
          public void onOpen(WebSocket ws) {
            // No ws.request(1): the client reads nothing from the connection.
          }
        };
    return HttpClient.newHttpClient()
        .newWebSocketBuilder()
        .header("Authorization", "Bearer " + token())
        .buildAsync(
            URI.create("ws://" + base + "/v1/sessions/" + session + "/keepalive-stream"), listener)
        .get(10, SECONDS);
  }

  private static String token() {
    return TestIdentities.client().currentToken();
  }

  private static int openStreams() {
    return (int)
        server
            .getBean(MeterRegistry.class)
            .find("fencepost.lock.keepalive.streams")
            .gauge()
            .value();
  }
}
