package dev.fencepost.deploy.images;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The images the build makes (docs/images.md): {@code fencepost/<artifactId>:<version>}, each at
 * {@code <module>/target/jib-image.tar}, with the main class and ports its module declares.
 */
enum AppImage {
  DB("db", "dev.fencepost.db.Migration"),
  LOCK_SERVER("lock-server-app", "dev.fencepost.lockserver.LockServerApplication", 8081, 9081),
  RAIL_PROXY("rail-proxy-app", "dev.fencepost.railproxy.RailProxyApplication", 8082, 9082),
  RAIL_STUB("rail-stub-app", "dev.fencepost.railstub.RailStubApplication", 8083, 9083),
  IDENTITY_ISSUER(
      "identity-issuer-app", "dev.fencepost.issuer.IdentityIssuerApplication", 8084, 9084),
  PAYOUT_JOB("payout-job", "dev.fencepost.payoutjob.PayoutJobApplication", 8085, 9085),
  RECONCILIATION_JOB(
      "reconciliation-job", "dev.fencepost.reconciliation.ReconciliationApplication", 8086, 9086),
  OPERATOR_CONSOLE(
      "operator-console", "dev.fencepost.console.OperatorConsoleApplication", 8087, 9087);

  /** The user every image runs as: numeric, not root (the chart's runAsNonRoot can check it). */
  static final String USER = "65532:65532";

  /** The JVM flags every application's entrypoint carries, in order (ADR 0172). */
  static final List<String> JVM_FLAGS =
      List.of(
          "-XX:MaxRAMPercentage=75",
          "-XX:+ExitOnOutOfMemoryError",
          "-XX:-UsePerfData",
          "-Djava.io.tmpdir=/tmp",
          "-Dfile.encoding=UTF-8");

  private final String module;
  private final String mainClass;
  private final int[] ports;

  AppImage(String module, String mainClass, int... ports) {
    this.module = module;
    this.mainClass = mainClass;
    this.ports = ports;
  }

  String module() {
    return module;
  }

  String mainClass() {
    return mainClass;
  }

  String reference() {
    return "fencepost/" + module + ":" + version();
  }

  Set<String> exposedPorts() {
    Set<String> exposed = new TreeSet<>();
    for (int port : ports) {
      exposed.add(port + "/tcp");
    }
    return exposed;
  }

  List<String> entrypoint() {
    List<String> entrypoint = new java.util.ArrayList<>();
    entrypoint.add("java");
    entrypoint.addAll(JVM_FLAGS);
    entrypoint.addAll(List.of("-cp", "@/app/jib-classpath-file", mainClass));
    return entrypoint;
  }

  /** The image, read once per test JVM (each read unpacks every layer's listing). */
  ImageTarball read() {
    return READ.computeIfAbsent(module, name -> ImageTarball.read(tarball(name)));
  }

  /** The base image the image-base module builds: every application's first layers. */
  static ImageTarball base() {
    return READ.computeIfAbsent("image-base", name -> ImageTarball.read(tarball(name)));
  }

  private static final java.util.Map<String, ImageTarball> READ =
      new java.util.concurrent.ConcurrentHashMap<>();

  static String version() {
    return property("fencepost.images.version");
  }

  /** The commit checked out, asked of git here (not of the plugin that labels the images). */
  static String revision() {
    try {
      Process git =
          new ProcessBuilder("git", "rev-parse", "HEAD")
              .directory(Path.of(property("fencepost.images.root")).toFile())
              .redirectErrorStream(true)
              .start();
      String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (git.waitFor() != 0) {
        throw new IllegalStateException("git rev-parse HEAD failed: " + out);
      }
      return out;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static Path tarball(String module) {
    Path tar = Path.of(property("fencepost.images.root"), module, "target", "jib-image.tar");
    if (!Files.isRegularFile(tar)) {
      throw new IllegalStateException(
          tar + " is missing: the image is built at package (./mvnw -B verify builds it)");
    }
    return tar;
  }

  private static String property(String name) {
    String value = System.getProperty(name);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(name + " is not set (the deploy module's surefire sets it)");
    }
    return value;
  }
}
