package dev.fencepost.launcher;

import dev.fencepost.launcher.process.JavaProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The platform's applications, each started as its own process from its runnable jar, exactly as an
 * operator runs it: its own configuration, its own class path, nothing co-hosted.
 *
 * <p>Where a jar is found, first match wins:
 *
 * <ol>
 *   <li>the system property {@code fencepost.jar.<module>} (a path to the jar);
 *   <li>{@code <dir>/<module>.jar} for the system property {@code fencepost.apps.dir} (the local
 *       platform's distribution ships them so);
 *   <li>{@code <module>/target/<module>-<version>-exec.jar} in the nearest directory above the
 *       working directory that has it (a build tree). Such a jar is copied once per JVM to a
 *       private directory first: a build running meanwhile rewrites target jars under a JVM still
 *       loading classes from them.
 * </ol>
 */
public enum App {
  IDENTITY_ISSUER("identity-issuer-app", "160m"),
  LOCK_SERVER("lock-server-app", "192m"),
  RAIL_PROXY("rail-proxy-app", "192m"),
  RAIL_STUB("rail-stub-app", "128m"),
  PAYOUT_JOB("payout-job", "256m"),
  RECONCILIATION_JOB("reconciliation-job", "256m"),
  OPERATOR_CONSOLE("operator-console", "192m");

  private static final Map<App, Path> LOCATED = new HashMap<>();

  private final String module;
  private final String heap;

  App(String module, String heap) {
    this.module = module;
    this.heap = heap;
  }

  /** The Maven module (and jar) name. */
  public String module() {
    return module;
  }

  /**
   * A process of this application with its usual heap and lean JVM flags, logging to {@code log},
   * with this JVM's local TLS ({@link LocalTls#forThisJvm()}, ADR 0150): it trusts the run's CA
   * and, given a port, serves HTTPS only.
   */
  public JavaProcess.Builder process(String name, Path log) {
    return JavaProcess.jar(name, jar()).leanJvm().heap(heap).log(log).tls(LocalTls.forThisJvm());
  }

  /** Its runnable jar (see the class comment for where it is looked for). */
  public Path jar() {
    synchronized (LOCATED) {
      return LOCATED.computeIfAbsent(this, App::locate);
    }
  }

  private Path locate() {
    String explicit = System.getProperty("fencepost.jar." + module);
    if (explicit != null && !explicit.isBlank()) {
      return existing(Path.of(explicit));
    }
    String appsDir = System.getProperty("fencepost.apps.dir");
    if (appsDir != null && !appsDir.isBlank()) {
      return existing(Path.of(appsDir, module + ".jar"));
    }
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Optional<Path> built = builtJar(dir.resolve(module).resolve("target"));
      if (built.isPresent()) {
        return privateCopy(built.get());
      }
    }
    throw new IllegalStateException(
        "no runnable jar for "
            + module
            + ": build it (./mvnw -B package -DskipTests), or set -Dfencepost.jar."
            + module
            + "=PATH or -Dfencepost.apps.dir=DIR");
  }

  private Optional<Path> builtJar(Path target) {
    if (!Files.isDirectory(target)) {
      return Optional.empty();
    }
    try (Stream<Path> files = Files.list(target)) {
      return files
          .filter(f -> f.getFileName().toString().startsWith(module + "-"))
          .filter(f -> f.getFileName().toString().endsWith("-exec.jar"))
          .findFirst();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path existing(Path jar) {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("no runnable jar at " + jar);
    }
    return jar;
  }

  private static Path privateCopy(Path jar) {
    try {
      Path dir = Files.createTempDirectory("fencepost-jars-");
      dir.toFile().deleteOnExit();
      Path copy = dir.resolve(jar.getFileName());
      Files.copy(jar, copy);
      copy.toFile().deleteOnExit();
      return copy;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
