package dev.fencepost.lockserver.http;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.lockserver.TestIdentities;
import dev.fencepost.lockserver.backend.LockBackend;
import dev.fencepost.lockserver.backend.postgres.KeepAliveStatements;
import dev.fencepost.lockserver.backend.postgres.PostgresLockServer;
import dev.fencepost.lockserver.http.KeepAliveStreamTest.Stream;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A keepalive frame holds no request thread while its statement runs (ADR 0229): the connection's
 * thread hands the keepalive to the backend and goes back to read other connections, and the answer
 * is written by the thread that ran the statement. On a server with two request threads, three
 * streams' keepalives can all wait for one held statement.
 */
class KeepAliveStreamThreadsTest {

  @RegisterExtension
  static EmbeddedPostgresExtension lockdb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/lockdb/db.changelog-master.yaml");

  static ConfigurableApplicationContext server;
  static String base;
  static LockServerClient worker;

  @BeforeAll
  static void start() {
    server =
        PostgresLockServer.start(
            lockdb,
            "--server.tomcat.threads.max=2",
            "--server.tomcat.threads.min-spare=1",
            // The server keeps request threads free of waiting acquires; two threads leave room
            // for one of each.
            "--fencepost.lock.max-waiting-acquires=1",
            "--fencepost.lock.max-waiting-acquires-per-session=1",
            "--fencepost.lock.reserved-request-threads=1");
    base = "127.0.0.1:" + ((WebServerApplicationContext) server).getWebServer().getPort();
    worker = LockServerClient.of(server).as(TestIdentities.client());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void keepalivesOfMoreStreamsThanRequestThreadsAllWaitForOneHeldStatement() throws Exception {
    List<Stream> streams = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      streams.add(
          Stream.open(base, worker.newSession("w" + i), TestIdentities.client().currentToken()));
    }
    try (KeepAliveStatements held =
        KeepAliveStatements.holdEach(server.getBean(LockBackend.class))) {
      streams.get(0).send("1");
      assertThat(held.awaitHeld(Duration.ofSeconds(10))).as("the first statement is held").isTrue();

      streams.get(1).send("2");
      streams.get(2).send("3");

      // Had each frame kept its thread until answered, the first two would hold both threads and
      // the third stream's frame would not even be read: one keepalive queued, not two.
      await().atMost(Duration.ofSeconds(10)).until(() -> held.queued() == 2);
    }
    for (int i = 0; i < 3; i++) {
      assertThat(streams.get(i).answer().get("seq").asLong()).isEqualTo(i + 1);
    }
    for (Stream s : streams) {
      s.ws().sendClose(WebSocket.NORMAL_CLOSURE, "done").get(5, SECONDS);
    }
  }
}
