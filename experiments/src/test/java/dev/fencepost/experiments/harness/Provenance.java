package dev.fencepost.experiments.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * What produced an evidence report: the commit of the code that ran ({@code git rev-parse --short
 * HEAD}, {@code -dirty} when the working tree had changes) and the one command that regenerates it.
 */
public final class Provenance {

  /** The script that regenerates reports, given the test classes to run. */
  public static final String SCRIPT = "experiments/run-evidence.sh";

  private static String commit;

  private Provenance() {}

  /**
   * The commit the runs of this JVM were built from, read once: the reports written by the same run
   * must not call each other's files a change. Changes under docs/evidence do not count as dirty
   * for the same reason: they are what this produces, not what produced it.
   */
  public static synchronized String commit() {
    if (commit == null) {
      String head = git("rev-parse", "--short", "HEAD");
      if (head.isEmpty()) {
        commit = "unknown (no git repository)";
      } else {
        String changes =
            git("status", "--porcelain", "--", ":(top)", ":(top,exclude)docs/evidence");
        commit = changes.isEmpty() ? head : head + "-dirty";
      }
    }
    return commit;
  }

  /**
   * The command that regenerates a report shown by these test classes: {@link #SCRIPT} with them,
   * and {@code --ci-tier} when this run was the CI tier (the script runs the long tier otherwise).
   */
  public static String command(Class<?>... producedBy) {
    return SCRIPT
        + (Settings.longTier() ? "" : " --ci-tier")
        + " "
        + Arrays.stream(producedBy).map(Class::getSimpleName).collect(Collectors.joining(" "));
  }

  /** The report's provenance line. */
  public static String paragraph(Class<?>... producedBy) {
    return "Generated from commit `"
        + commit()
        + "` by "
        + Arrays.stream(producedBy)
            .map(c -> "`" + c.getSimpleName() + "`")
            .collect(Collectors.joining(" and "))
        + ", after every assertion of the runs shown here passed.";
  }

  private static String git(String... args) {
    List<String> command = new java.util.ArrayList<>(List.of("git"));
    command.addAll(List.of(args));
    try {
      Process git = new ProcessBuilder(command).redirectErrorStream(false).start();
      String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!git.waitFor(30, TimeUnit.SECONDS) || git.exitValue() != 0) {
        return "";
      }
      return out;
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }
}
