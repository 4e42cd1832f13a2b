package dev.fencepost.experiments.harness;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** What failsafe passes in (experiments/pom.xml), with fallbacks for an IDE run. */
public final class Settings {

  private Settings() {}

  private static final java.util.Map<String, Path> COPIES = new java.util.HashMap<>();

  /**
   * A runnable jar named by a system property, copied once per test JVM to a private directory: the
   * working tree is shared, and a build of this module running meanwhile rewrites target/*-exec.jar
   * under a JVM that is still loading classes from it.
   */
  public static synchronized Path jar(String property) {
    String value = System.getProperty(property);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(
          "system property " + property + " is not set: run through failsafe (mvn verify)");
    }
    return COPIES.computeIfAbsent(
        property,
        p -> {
          Path source = Path.of(value);
          if (!Files.exists(source)) {
            throw new IllegalStateException("no runnable jar at " + source + ": run package");
          }
          try {
            Path dir = Files.createTempDirectory("fencepost-experiments-jars");
            dir.toFile().deleteOnExit();
            Path copy = dir.resolve(source.getFileName());
            Files.copy(source, copy);
            copy.toFile().deleteOnExit();
            return copy;
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
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
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
