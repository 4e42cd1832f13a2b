package dev.fencepost.localstack;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The three benchmark scripts that run the platform through local-stack (bench/run-payout-bench.sh,
 * run-capacity.sh, run-growth.sh) write their sections from local-stack's {@code --summary-json}.
 * Their runs take an hour or more on a quiet machine, so a summary field a script no longer finds
 * would otherwise be found at the end of one. This lays out a results directory as a run leaves it,
 * around one real summary, and rewrites a section from it with the script's {@code --report}.
 */
final class BenchReports {

  /** One script's report: its exit code, what it printed, and the document it wrote. */
  record Report(int exit, String printed, String document) {}

  /** The repository's root: surefire runs in the module's directory. */
  static final Path ROOT = findRoot();

  private BenchReports() {}

  /**
   * Runs {@code bench/<script> --report DIR} with DIR holding {@code summary} under each of {@code
   * names}, and the files the run would have written beside them; {@code extra} are further files
   * of DIR (name, content), such as the commit or the sizes.
   */
  static Report render(String script, Path summary, List<String> names, Path work, String... extra)
      throws IOException, InterruptedException {
    Path out = Files.createDirectories(work.resolve(script + "-results"));
    write(out, "commit", "0000000000000000000000000000000000000000");
    write(out, "finished", "2026-01-01 00:00");
    write(out, "run.load-before", "0.50 0.40 0.30");
    write(out, "run.load-after", "1.50 0.60 0.40");
    for (String name : names) {
      Files.copy(summary, out.resolve(name + ".json"));
      write(out, name + ".command", "java -jar local-stack.jar --summary-json " + out + "/x.json");
      write(out, name + ".wall", "60");
      write(out, name + ".quiet-wait", "0");
      write(out, name + ".load-before", "0.50 0.40 0.30");
      write(out, name + ".load-after", "1.50 0.60 0.40");
      write(out, name + ".probe-before", "200");
      write(out, name + ".probe-after", "210");
    }
    for (int i = 0; i < extra.length; i += 2) {
      write(out, extra[i], extra[i + 1]);
    }
    Path document = work.resolve(script + ".md");
    Path output = work.resolve(script + ".out");
    ProcessBuilder builder =
        new ProcessBuilder("bash", "bench/" + script, "--report", out.toString())
            .directory(ROOT.toFile())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
    builder.environment().put("DOC", document.toString());
    Process process = builder.start();
    boolean finished = process.waitFor(2, TimeUnit.MINUTES);
    if (!finished) {
      process.destroyForcibly();
    }
    String printed = Files.readString(output, StandardCharsets.UTF_8);
    if (!finished) {
      throw new IllegalStateException(script + " --report did not finish in 2 min: " + printed);
    }
    String written = Files.exists(document) ? Files.readString(document) : "";
    return new Report(process.exitValue(), printed, written);
  }

  private static void write(Path dir, String name, String content) throws IOException {
    Files.writeString(dir.resolve(name), content + "\n");
  }

  private static Path findRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null) {
      if (Files.isRegularFile(dir.resolve("mvnw"))
          && Files.isRegularFile(dir.resolve("bench/run-growth.sh"))) {
        return dir;
      }
      dir = dir.getParent();
    }
    throw new IllegalStateException("no repository root (mvnw and bench/) above here");
  }
}
