package dev.fencepost.railstub;

import static dev.fencepost.railstub.StubHttp.payment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The built runnable jar starts as the rail stub and behaves as one. */
class RailStubJarIT {

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
  void theExecJarStartsAndIsNonIdempotent() throws Exception {
    Path jar = Path.of(System.getProperty("stub.exec.jar"));
    assertThat(jar).exists();
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Path log = Files.createTempFile("rail-stub-", ".log");
    process =
        new ProcessBuilder(
                javaBinary(), "-Xmx256m", "-jar", jar.toString(), "--server.port=" + port)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    StubHttp stub = new StubHttp(port);
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .until(() -> stub.get("/actuator/health").statusCode() == 200);

    assertThat(stub.post("/rail/payments", payment("jar-1"), Duration.ofSeconds(5)).statusCode())
        .isEqualTo(201);
    assertThat(stub.post("/rail/payments", payment("jar-1"), Duration.ofSeconds(5)).statusCode())
        .isEqualTo(201);
    assertThat(stub.movementsFor("jar-1")).isEqualTo(2);
    assertThat(Files.readString(log)).contains("\"event\":\"rail.stub.payment\"");
  }

  private static String javaBinary() {
    return System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
  }
}
