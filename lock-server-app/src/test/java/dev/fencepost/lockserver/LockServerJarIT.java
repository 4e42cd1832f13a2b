package dev.fencepost.lockserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.lockserver.http.LockServerClient;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.io.File;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The built runnable jar is what operators run: standard Spring configuration selects lockdb, the
 * changelog is applied at start, and every event is one line of ECS JSON with its stable name.
 */
class LockServerJarIT {

  @RegisterExtension
  static EmbeddedPostgresExtension lockdb = EmbeddedPostgresExtension.withChangelog(null);

  private Process process;

  @AfterEach
  void stop() throws Exception {
    if (process != null) {
      process.destroy();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  @Test
  void theExecJarStartsOnLockdbFromSpringDatasourcePropertiesAndLogsEcsJson() throws Exception {
    Path jar = Path.of(System.getProperty("lockserver.exec.jar"));
    assertThat(jar).exists();
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Path log = Files.createTempFile("lock-server-", ".log");
    process =
        new ProcessBuilder(
                System.getProperty("java.home") + File.separator + "bin" + File.separator + "java",
                "-Xmx256m",
                "-jar",
                jar.toString(),
                "--server.port=" + port,
                "--server.address=127.0.0.1",
                "--spring.datasource.url=" + lockdb.jdbcUrl(),
                "--spring.datasource.username=postgres",
                "--spring.datasource.password=postgres")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    LockServerClient client = new LockServerClient("http://127.0.0.1:" + port);
    await()
        .atMost(Duration.ofSeconds(120))
        .ignoreExceptions()
        .until(() -> client.get("/actuator/health").status() == 200);

    String session = client.newSession("jar-probe");
    long token = client.acquire("payout:acc-jar", session, 0).token();
    client.revoke("payout:acc-jar", "oncall-jane", "jar smoke");

    assertThat(token).isPositive();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> Files.readString(log).contains("\"event\":\"lock.revoked\""));
    String acquired =
        Files.readAllLines(log).stream()
            .filter(line -> line.contains("\"event\":\"lock.acquired\""))
            .findFirst()
            .orElseThrow();
    assertThat(acquired).startsWith("{").contains("\"token\":" + token).contains("\"@timestamp\"");
  }
}
