package dev.fencepost.lockserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.launcher.process.ExecJar;
import dev.fencepost.lockserver.http.LockServerClient;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.nio.file.Path;
import java.time.Duration;
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

  private ExecJar server;

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void theExecJarStartsOnLockdbFromSpringDatasourcePropertiesAndLogsEcsJson() throws Exception {
    server =
        ExecJar.start(
            Path.of(System.getProperty("lockserver.exec.jar")),
            "--server.address=127.0.0.1",
            "--spring.datasource.url=" + lockdb.jdbcUrl(),
            "--spring.datasource.username=postgres",
            "--spring.datasource.password=postgres");
    LockServerClient client = new LockServerClient("http://127.0.0.1:" + server.port());
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
        .until(() -> server.output().contains("\"event\":\"lock.revoked\""));
    String acquired =
        server.outputLines().stream()
            .filter(line -> line.contains("\"event\":\"lock.acquired\""))
            .findFirst()
            .orElseThrow();
    assertThat(acquired).startsWith("{").contains("\"token\":" + token).contains("\"@timestamp\"");
  }
}
