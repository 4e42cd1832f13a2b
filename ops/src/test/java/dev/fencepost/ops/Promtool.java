package dev.fencepost.ops;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Prometheus's own promtool, run as a process; found on PATH, never downloaded. */
final class Promtool {

  /** What one run printed and how it ended. */
  record Run(List<String> command, int exitCode, String output) {
    boolean succeeded() {
      return exitCode == 0;
    }

    String describe() {
      return String.join(" ", command) + " exited " + exitCode + ":\n" + output;
    }
  }

  private Promtool() {}

  /**
   * promtool from PATH. Missing is a failure with the fix, never a skip: the rules are untested
   * without it.
   */
  static Path binary() {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, "promtool");
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    throw new AssertionError(
        "promtool is not on PATH, so the alert rules cannot be checked. Install Debian's"
            + " prometheus package (apt-get install -y prometheus), which provides"
            + " /usr/bin/promtool; .ci/run does this on a fresh machine.");
  }

  static Run checkRules(Path rules) {
    return run(List.of("check", "rules", rules.toString()));
  }

  static Run testRules(List<Path> tests) {
    List<String> args = new ArrayList<>(List.of("test", "rules"));
    tests.forEach(t -> args.add(t.toString()));
    return run(args);
  }

  static Run run(List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(binary().toString());
    command.addAll(args);
    try {
      // Unit tests name their rule files relative to themselves: run from the repository root.
      Process process =
          new ProcessBuilder(command)
              .directory(Repository.ROOT.toFile())
              .redirectErrorStream(true)
              .start();
      process.getOutputStream().close();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new AssertionError(String.join(" ", command) + " did not end within 2 minutes");
      }
      return new Run(command, process.exitValue(), output);
    } catch (IOException e) {
      throw new AssertionError("could not run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted running " + command, e);
    }
  }
}
