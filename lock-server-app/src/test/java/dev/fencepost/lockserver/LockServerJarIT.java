package dev.fencepost.lockserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.lockserver.http.LockServerClient;
import dev.fencepost.testsupport.grants.TestGrants;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The built runnable jar is what operators run: standard Spring configuration selects lockdb, the
 * changelog is applied at start, and every event is one line of ECS JSON with its stable name.
 */
class LockServerJarIT {

  @RegisterExtension
  static EmbeddedPostgresExtension lockdb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/lockdb/db.changelog-master.yaml");

  private JavaProcess server;

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void theExecJarStartsOnLockdbWithSmallWebSocketBuffersAndLogsEcsJson() throws Exception {
    server =
        start(
            Path.of(System.getProperty("lockserver.exec.jar")),
            "--spring.datasource.url=" + lockdb.jdbcUrl(),
            "--spring.datasource.username=" + lockdb.database().runtime().username(),
            "--spring.datasource.password=" + lockdb.database().runtime().password(),
            TestGrants.lockServerArg(),
            TestIdentities.serverArg());
    LockServerClient client = new LockServerClient("http://127.0.0.1:" + server.port());
    LockServerClient management =
        new LockServerClient("http://127.0.0.1:" + server.managementPort());
    await()
        .atMost(Duration.ofSeconds(120))
        .ignoreExceptions()
        .until(() -> management.get("/actuator/health").status() == 200);

    String session = client.newSession("jar-probe");
    long token = client.acquire("payout:acc-jar", session, 0).token();
    client.revoke("payout:acc-jar", "oncall-jane", "jar smoke");

    assertThat(token).isPositive();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> output(server).contains("\"event\":\"lock.revoked\""));
    String acquired =
        output(server).lines().toList().stream()
            .filter(line -> line.contains("\"event\":\"lock.acquired\""))
            .findFirst()
            .orElseThrow();
    assertThat(acquired).startsWith("{").contains("\"token\":" + token).contains("\"@timestamp\"");
    // The jar's main asked Tomcat for small WebSocket buffers before Tomcat started (ADR 0226).
    String buffers =
        output(server).lines().toList().stream()
            .filter(line -> line.contains("\"event\":\"lock.keepalive_stream.buffers_sized\""))
            .findFirst()
            .orElseThrow();
    assertThat(buffers).contains("\"frameBufferBytes\":512");
  }

  /** The runnable jar as its own process on a free loopback port, logging to a file. */
  private static JavaProcess start(Path jar, String... args) {
    return JavaProcess.jar("lock-server", jar).httpPort(0).args(List.of(args)).start();
  }

  private static String output(JavaProcess process) {
    try {
      return Files.readString(process.log());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
