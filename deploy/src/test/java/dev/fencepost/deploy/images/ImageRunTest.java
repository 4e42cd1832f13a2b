package dev.fencepost.deploy.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every image's file system run on its own (docs/images.md, ADR 0172), as its user, with nothing of
 * the build machine's: its runtime starts, and its application gets far enough to show that the
 * runtime has every module and the image every class (Spring starts and stops on a setting only a
 * deployment gives, with the application's own message). The rail stub, which needs nothing, starts
 * for real and answers its health on loopback.
 */
class ImageRunTest {

  /** How long a start may take on a loaded CI machine (a condition is awaited, not a time). */
  private static final Duration START = Duration.ofMinutes(4);

  /**
   * Signs of an incomplete image: a class or a JDK module left out, a library not found. None may
   * appear in any run's output.
   */
  private static final List<String> INCOMPLETE =
      List.of(
          "NoClassDefFoundError",
          "ClassNotFoundException",
          "java.lang.module.FindException",
          "UnsatisfiedLinkError",
          "error while loading shared libraries",
          "No such file or directory",
          "Read-only file system");

  // C1 only: these runs prove the image complete, not its speed; it halves their start on 2 cores.
  private static final Map<String, String> QUICK_JIT =
      Map.of("JAVA_TOOL_OPTIONS", "-XX:TieredStopAtLevel=1");

  // Each image is unpacked once for all of its runs (an unpack copies some 150 MB).
  @TempDir static Path work;

  private static final Map<AppImage, ImageRoot> UNPACKED = new java.util.EnumMap<>(AppImage.class);

  private static ImageRoot unpacked(AppImage app) {
    return UNPACKED.computeIfAbsent(
        app, image -> ImageRoot.unpack(image.read(), work.resolve(image.module())));
  }

  // The test command unpacks and runs the images the other runs need anyway (each unpack copies
  // some 150 MB); the long tier runs the rest. All share the base's runtime layer, which the
  // config test checks in every image.
  @ParameterizedTest
  @EnumSource(
      value = AppImage.class,
      names = {"DB", "LOCK_SERVER", "RAIL_STUB"})
  void theImagesOwnJavaRunsAsItsUserWithNothingElse(AppImage app) throws Exception {
    assertItsJavaRuns(app);
  }

  @ParameterizedTest
  @EnumSource(
      value = AppImage.class,
      names = {"DB", "LOCK_SERVER", "RAIL_STUB"},
      mode = EnumSource.Mode.EXCLUDE)
  @Tag("long")
  void theOtherImagesOwnJavaRunsAsItsUserWithNothingElse(AppImage app) throws Exception {
    assertItsJavaRuns(app);
  }

  private static void assertItsJavaRuns(AppImage app) throws Exception {
    ImageTarball image = app.read();
    ImageRoot root = unpacked(app);
    Path log = work.resolve(app.module() + "-java-version.log");

    Process java = root.start(List.of(image.entrypoint().get(0), "-version"), Map.of(), log);

    assertThat(exitCode(java)).as(ImageRoot.read(log)).isZero();
    assertThat(ImageRoot.read(log)).contains("openjdk version \"25.");
  }

  /** The lock server's start runs in the test command; the other applications' in the long tier. */
  static List<Arguments> lockServerStoppedByAMissingSetting() {
    return List.of(
        Arguments.of(
            AppImage.LOCK_SERVER, "fencepost.lock.grant-signing.jwk-set-file is required"));
  }

  static List<Arguments> otherApplicationsStoppedByAMissingSetting() {
    return List.of(
        Arguments.of(AppImage.RAIL_PROXY, "set exactly one of fencepost.proxy.grants.jwk-set-uri"),
        Arguments.of(AppImage.IDENTITY_ISSUER, "no secret for client(s)"),
        Arguments.of(AppImage.PAYOUT_JOB, "fencepost.paydb.username is not set"),
        Arguments.of(AppImage.RECONCILIATION_JOB, "fencepost.paydb.username is not set"));
  }

  @ParameterizedTest
  @MethodSource("lockServerStoppedByAMissingSetting")
  void startsSpringAndStopsOnlyOnASettingADeploymentGives(AppImage app, String ownMessage)
      throws Exception {
    assertSpringStartsAndStopsOn(app, ownMessage);
  }

  @ParameterizedTest
  @MethodSource("otherApplicationsStoppedByAMissingSetting")
  @Tag("long")
  void theOtherApplicationsStartSpringAndStopOnlyOnASettingADeploymentGives(
      AppImage app, String ownMessage) throws Exception {
    assertSpringStartsAndStopsOn(app, ownMessage);
  }

  private static void assertSpringStartsAndStopsOn(AppImage app, String ownMessage)
      throws Exception {
    ImageTarball image = app.read();
    ImageRoot root = unpacked(app);
    Path log = work.resolve(app.module() + "-start.log");

    Process process = root.start(image.entrypoint(), QUICK_JIT, log);

    assertThat(exitCode(process)).isEqualTo(1);
    String output = ImageRoot.read(log);
    assertThat(output)
        .contains("Starting " + simpleName(app.mainClass()))
        .contains("started by nonroot")
        .contains(ownMessage);
    assertComplete(output);
  }

  @Test
  void theMigrationStepLoadsItsDriverAndReportsTheUnreachableDatabase() throws Exception {
    ImageTarball image = AppImage.DB.read();
    ImageRoot root = unpacked(AppImage.DB);
    Path log = work.resolve("migration.log");
    List<String> command = new ArrayList<>(image.entrypoint());
    int closedPort = freePort();
    command.addAll(
        List.of(
            "lockdb",
            "--url=jdbc:postgresql://127.0.0.1:" + closedPort + "/lockdb",
            "--username=lockdb_owner",
            "--runtime-role=lockdb_app"));

    Process migration =
        root.start(command, Map.of("FENCEPOST_DB_PASSWORD", "not-a-real-password"), log);

    assertThat(exitCode(migration)).isEqualTo(1);
    String output = ImageRoot.read(log);
    assertThat(output)
        .contains("\"event\":\"db.migration.failed\"")
        .contains("could not connect to jdbc:postgresql://127.0.0.1:" + closedPort);
    assertComplete(output);
  }

  @Test
  void theRailStubStartsForRealAndAnswersItsHealthOnLoopback() throws Exception {
    ImageTarball image = AppImage.RAIL_STUB.read();
    ImageRoot root = unpacked(AppImage.RAIL_STUB);
    Path log = work.resolve("stub.log");
    int port = freePort();
    int managementPort = freePort();
    List<String> command = new ArrayList<>(image.entrypoint());
    command.addAll(
        List.of(
            "--server.address=127.0.0.1",
            "--server.port=" + port,
            "--management.server.address=127.0.0.1",
            "--management.server.port=" + managementPort));

    Process stub = root.start(command, QUICK_JIT, log);
    try {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
      HttpRequest health =
          HttpRequest.newBuilder(
                  URI.create("http://127.0.0.1:" + managementPort + "/actuator/health"))
              .timeout(Duration.ofSeconds(5))
              .build();
      await("the stub's health, or its exit")
          .atMost(START)
          .pollInterval(Duration.ofMillis(500))
          .ignoreExceptions()
          .until(
              () -> {
                assertThat(stub.isAlive()).as(ImageRoot.read(log)).isTrue();
                return http.send(health, HttpResponse.BodyHandlers.ofString()).body();
              },
              body -> body.contains("\"status\":\"UP\""));
      assertComplete(ImageRoot.read(log));
    } finally {
      stop(stub);
    }
  }

  /**
   * Stops a run by its PID: SIGTERM to the application, unshare's child (unshare itself ignores
   * SIGTERM while it waits; --kill-child would not reach it either, as chroot's change of user
   * clears the parent-death signal).
   */
  private static void stop(Process unshare) {
    unshare.children().forEach(ProcessHandle::destroy);
    exitCode(unshare);
  }

  private static int exitCode(Process process) {
    await().atMost(START).pollInterval(Duration.ofMillis(200)).until(() -> !process.isAlive());
    return process.exitValue();
  }

  private static void assertComplete(String output) {
    for (String sign : INCOMPLETE) {
      assertThat(output).as("a run's output (incomplete image?)").doesNotContain(sign);
    }
  }

  private static String simpleName(String className) {
    return className.substring(className.lastIndexOf('.') + 1);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
