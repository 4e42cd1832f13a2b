package dev.fencepost.launcher.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JavaProcessTest {

  @Test
  void aFreeLoopbackPortIsNeverHandedOutTwiceInARow() {
    // The kernel's own picks repeat: 2,000 in a row gave 273 ports twice on this machine.
    java.util.Set<Integer> ports = new java.util.HashSet<>();
    for (int i = 0; i < 2_000; i++) {
      assertThat(ports.add(JavaProcess.freeLoopbackPort())).as("pick %d", i).isTrue();
    }
  }

  private static final Duration START = Duration.ofMinutes(1);

  @TempDir Path dir;
  private JavaProcess process;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

  @AfterEach
  void stop() {
    if (process != null) {
      process.kill();
    }
  }

  private JavaProcess.Builder service(String... args) {
    return JavaProcess.mainClass(
            "health", System.getProperty("java.class.path"), HealthServerMain.class.getName())
        .leanJvm()
        .heap("32m")
        .httpPort(0)
        .log(dir.resolve("health.log"))
        .args(java.util.List.of(args));
  }

  private int health() throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create(process.managementUrl() + "/actuator/health"))
                .timeout(Duration.ofMillis(500))
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  @Test
  void aServiceIsReadyOnThePortChosenBeforeItStarted() throws Exception {
    JavaProcess.Builder builder = service();
    process = builder.start().awaitHealthy(START);
    assertThat(process.port()).isPositive();
    assertThat(process.managementPort()).isPositive().isNotEqualTo(process.port());
    assertThat(health()).isEqualTo(200);
    assertThat(process.logLines("serving on " + process.port())).hasSize(1);
  }

  @Test
  void aPausedProcessAnswersNothingUntilItIsResumed() throws Exception {
    process = service().start().awaitHealthy(START);
    process.pause();
    assertThatThrownBy(this::health).isInstanceOf(IOException.class);
    process.resume();
    assertThat(health()).isEqualTo(200);
  }

  @Test
  void aKilledProcessIsGoneAndRestartsOnTheSamePort() throws Exception {
    process = service().start().awaitHealthy(START);
    int port = process.port();
    int managementPort = process.managementPort();
    long firstPid = process.pid();
    process.kill();
    assertThat(process.isAlive()).isFalse();
    assertThatThrownBy(this::health).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> process.signal(JavaProcess.Signal.TERM))
        .hasMessageContaining("not running");
    process.restart().awaitHealthy(START);
    assertThat(process.pid()).isNotEqualTo(firstPid);
    assertThat(process.port()).isEqualTo(port);
    assertThat(process.managementPort()).isEqualTo(managementPort);
    assertThat(health()).isEqualTo(200);
  }

  @Test
  void aKilledProcessLeavesNoWatchdogBehindThatCouldSignalItsPidLater() {
    process = service().start().awaitHealthy(START);
    long pid = process.pid();
    assertThat(watchdogsOf(pid)).as("the watchdog of a running process").hasSize(1);
    process.kill();
    assertThat(watchdogsOf(pid)).as("watchdogs of the killed pid " + pid).isEmpty();
  }

  /** This JVM's children that would {@code kill -KILL pid} when it exits. */
  private static List<ProcessHandle> watchdogsOf(long pid) {
    return ProcessHandle.current()
        .children()
        .filter(ProcessHandle::isAlive)
        .filter(
            p ->
                p.info()
                    .arguments()
                    .map(args -> String.join(" ", args).contains("kill -KILL " + pid + " "))
                    .orElse(false))
        .toList();
  }

  @Test
  void aProcessThatExitsWhileStartingFailsAtOnceNamingItsLog() {
    process = service("--fail-first=" + dir.resolve("marker")).start();
    assertThatThrownBy(() -> process.awaitHealthy(START))
        .hasMessageContaining("exited while starting")
        .hasMessageContaining("health.log");
    assertThat(process.exitValue()).isEqualTo(3);
  }

  @Test
  void aStartThatFailsIsRetriedOnTheSamePortUpToTheGivenAttempts() throws Exception {
    process = service("--fail-first=" + dir.resolve("marker")).start();
    process.awaitHealthy(START, 2);
    assertThat(health()).isEqualTo(200);
    assertThat(process.logLines("failing on purpose")).hasSize(1);
  }

  @Test
  void closeStopsTheProcessGracefullyAndIsIdempotent() {
    process = service().start().awaitHealthy(START);
    process.close();
    assertThat(process.isAlive()).isFalse();
    process.close();
  }

  @Test
  void aMissingJarIsAClearErrorBeforeAnythingStarts() {
    assertThatThrownBy(() -> JavaProcess.jar("nothing", dir.resolve("absent.jar")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no runnable jar at");
  }
}
