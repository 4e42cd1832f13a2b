package dev.fencepost.railstub;

import static dev.fencepost.railstub.StubHttp.payment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.launcher.process.JavaProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The built runnable jar starts as the rail stub and behaves as one. */
class RailStubJarIT {

  private JavaProcess stubProcess;

  @AfterEach
  void stop() throws Exception {
    if (stubProcess != null) {
      stubProcess.close();
    }
  }

  @Test
  void theExecJarStartsAndIsNonIdempotent() throws Exception {
    stubProcess =
        start(
            Path.of(System.getProperty("stub.exec.jar")),
            StubHttp.issuerArgs().toArray(String[]::new));
    StubHttp stub = new StubHttp(stubProcess.port());
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .until(
            () ->
                new StubHttp(stubProcess.managementPort()).get("/actuator/health").statusCode()
                    == 200);

    assertThat(stub.post("/rail/payments", payment("jar-1"), Duration.ofSeconds(5)).statusCode())
        .isEqualTo(201);
    assertThat(stub.post("/rail/payments", payment("jar-1"), Duration.ofSeconds(5)).statusCode())
        .isEqualTo(201);
    assertThat(stub.movementsFor("jar-1")).isEqualTo(2);
    assertThat(output(stubProcess)).contains("\"event\":\"rail.stub.payment\"");
  }

  /** The runnable jar as its own process on a free loopback port, logging to a file. */
  private static JavaProcess start(Path jar, String... args) {
    return JavaProcess.jar("rail-stub", jar).httpPort(0).args(List.of(args)).start();
  }

  private static String output(JavaProcess process) {
    try {
      return Files.readString(process.log());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
