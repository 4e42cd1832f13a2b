package dev.fencepost.experiments.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/** What failsafe passes in (experiments/pom.xml), with fallbacks for an IDE run. */
public final class Settings {

  /** The system property naming this module's exec jar, as {@code App} names the others. */
  static final String WORKER_JAR = "fencepost.jar.experiments";

  private Settings() {}

  /**
   * The experiment worker's runnable jar (this module's exec jar): {@value #WORKER_JAR} (failsafe
   * sets it), else {@code target/experiments-*-exec.jar} under the working directory (an IDE run
   * from the module after {@code package}).
   */
  public static Path workerJar() {
    String explicit = System.getProperty(WORKER_JAR);
    if (explicit != null && !explicit.isBlank()) {
      return Path.of(explicit);
    }
    Path target = Path.of("target");
    if (Files.isDirectory(target)) {
      try (Stream<Path> files = Files.list(target)) {
        Optional<Path> built =
            files
                .filter(f -> f.getFileName().toString().startsWith("experiments-"))
                .filter(f -> f.getFileName().toString().endsWith("-exec.jar"))
                .findFirst();
        if (built.isPresent()) {
          return built.get();
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    throw new IllegalStateException(
        "no experiment worker jar: run through failsafe (mvn verify), or package the module and"
            + " set -D"
            + WORKER_JAR
            + "=PATH");
  }

  /** target/runs: one directory per scenario below it. */
  public static Path runsDir() {
    return Path.of(System.getProperty("experiments.runs.dir", "target/runs"));
  }

  /** Where evidence reports go besides target/evidence: docs/evidence under run-evidence.sh. */
  public static Optional<Path> evidenceDir() {
    String value = System.getProperty("experiments.evidence.dir", "");
    return value.isBlank() ? Optional.empty() : Optional.of(Path.of(value));
  }

  /** Always written: target/evidence. */
  public static Path targetEvidenceDir() {
    return runsDir().resolveSibling("evidence");
  }

  /** The long tier (chaos runs) is on: {@code -Dexperiments.long=true}. */
  public static boolean longTier() {
    return Boolean.parseBoolean(System.getProperty("experiments.long", "false"));
  }

  static void ensureDir(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
