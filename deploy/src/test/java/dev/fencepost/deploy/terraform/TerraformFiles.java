package dev.fencepost.deploy.terraform;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Where the Terraform is, a copy of it to break, and the {@code terraform} binary. */
final class TerraformFiles {

  private TerraformFiles() {}

  /** ../terraform relative to the deploy module (Surefire runs with the module as base dir). */
  static Path root() {
    Path root =
        Path.of(System.getProperty("basedir", "."))
            .toAbsolutePath()
            .resolve("../terraform")
            .normalize();
    if (!Files.isDirectory(root.resolve("modules"))) {
      throw new IllegalStateException("no Terraform tree at " + root);
    }
    return root;
  }

  static Path copy(Path from, Path to) {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path source : files.toList()) {
        Path target = to.resolve(from.relativize(source).toString());
        if (Files.isDirectory(source)) {
          Files.createDirectories(target);
        } else {
          Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
        }
      }
      return to;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The terraform binary on PATH; fails (never skips) when there is none. */
  static Path terraformBinary() {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(java.io.File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, "terraform");
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    throw new AssertionError(
        "terraform is not on PATH ("
            + path
            + "): the formatting check needs the terraform CLI (1.5 or later; on the project's"
            + " machine image /usr/local/bin/terraform). Install it or put it on PATH.");
  }

  record Result(int exitCode, String output) {}

  /** {@code terraform fmt -check -recursive -diff} in {@code dir}, with no network access. */
  static Result fmtCheck(Path dir) {
    ProcessBuilder builder =
        new ProcessBuilder(
                List.of(terraformBinary().toString(), "fmt", "-check", "-recursive", "-diff"))
            .directory(dir.toFile())
            .redirectErrorStream(true);
    builder.environment().put("CHECKPOINT_DISABLE", "1");
    builder.environment().put("TF_IN_AUTOMATION", "1");
    try {
      Process process = builder.start();
      process.getOutputStream().close();
      String output =
          new String(
              process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("terraform fmt did not finish within 60 s:\n" + output);
      }
      return new Result(process.exitValue(), output);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting for terraform fmt", e);
    }
  }
}
