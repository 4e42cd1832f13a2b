package dev.fencepost.launcher.etcd;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * Finds the etcd server binary: {@code ETCD_BIN} if set, else {@code etcd} on {@code PATH}. Tests
 * never skip when it is missing; they fail and say how to install it.
 */
final class EtcdBinary {

  /** What to run when etcd is missing: Debian's package, pinned by the build machines' image. */
  static final String INSTALL_HINT = "apt-get install -y etcd-server";

  private EtcdBinary() {}

  static Path locate() {
    return locate(System::getenv);
  }

  /** The lookup, with the environment passed in so that tests can show the failure message. */
  static Path locate(UnaryOperator<String> environment) {
    String configured = environment.apply("ETCD_BIN");
    if (configured != null && !configured.isBlank()) {
      Path path = Path.of(configured);
      if (Files.isExecutable(path)) {
        return path;
      }
      throw new IllegalStateException(
          "ETCD_BIN="
              + configured
              + " is not an executable file; unset it to use etcd from PATH, or install etcd with: "
              + INSTALL_HINT);
    }
    String searchPath = environment.apply("PATH");
    if (searchPath != null) {
      for (String directory : searchPath.split(File.pathSeparator)) {
        if (directory.isEmpty()) {
          continue;
        }
        Path candidate = Path.of(directory, "etcd");
        if (Files.isExecutable(candidate) && !Files.isDirectory(candidate)) {
          return candidate;
        }
      }
    }
    throw new IllegalStateException(
        "etcd is not installed: no executable 'etcd' on PATH and ETCD_BIN is not set. "
            + "The etcd tests run a real etcd server and are never skipped; install it with: "
            + INSTALL_HINT);
  }
}
