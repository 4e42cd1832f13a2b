package dev.fencepost.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * What every benchmark report names (ADR 0183): the commit the measured code was built from, with
 * "dirty" and the changed paths when the working tree differs from it, and the machine's load
 * average from {@code /proc/loadavg}.
 */
public final class Provenance {

  private Provenance() {}

  /**
   * Runs the JMH benchmarks of one class, with JMH's own command-line options in {@code args} (for
   * example {@code -prof gc}), between a line naming the Java version, the cores, the load and the
   * commit and a line with the load after: what a JMH run's report quotes beside its figures.
   */
  public static void runJmh(Class<?> benchmarks, String... args) throws Exception {
    System.out.printf(
        "Java %s, %d cores, load %s, commit %s%n",
        System.getProperty("java.version"),
        Runtime.getRuntime().availableProcessors(),
        loadAverage(),
        commit());
    new Runner(
            new OptionsBuilder()
                .parent(new CommandLineOptions(args))
                .include(benchmarks.getName())
                .build())
        .run();
    System.out.println("load after " + loadAverage());
  }

  /**
   * The commit: {@code bench.commit} when the script passed it (it knows what it built), else asked
   * of git in the working directory; "unknown" outside a repository.
   */
  public static String commit() {
    String given = System.getProperty("bench.commit", "").trim();
    return given.isEmpty()
        ? describe(git("rev-parse", "HEAD"), git("status", "--porcelain"))
        : given;
  }

  /**
   * {@code sha}, or {@code sha (dirty: a, b, ...)} naming up to five changed paths, from the output
   * of {@code git rev-parse HEAD} and {@code git status --porcelain}; "unknown" without a sha.
   */
  static String describe(String revParse, String porcelain) {
    String sha = revParse == null ? "" : revParse.trim();
    if (sha.isEmpty()) {
      return "unknown";
    }
    List<String> changed = new ArrayList<>();
    if (porcelain != null) {
      for (String line : porcelain.split("\n")) {
        if (line.length() > 3) {
          changed.add(line.substring(3).trim());
        }
      }
    }
    if (changed.isEmpty()) {
      return sha;
    }
    String shown = String.join(", ", changed.subList(0, Math.min(5, changed.size())));
    return sha + " (dirty: " + shown + (changed.size() > 5 ? ", ..." : "") + ")";
  }

  /** 1-, 5- and 15-minute load averages from {@code /proc/loadavg}, or "?" when unreadable. */
  public static String loadAverage() {
    try {
      return loadAverage(Files.readString(Path.of("/proc/loadavg")));
    } catch (Exception e) {
      return "?";
    }
  }

  /** The first three fields of a {@code /proc/loadavg} line. */
  static String loadAverage(String procLoadavg) {
    String[] f = procLoadavg.trim().split("\\s+");
    return f.length < 3 ? "?" : f[0] + " " + f[1] + " " + f[2];
  }

  private static String git(String... args) {
    List<String> command = new ArrayList<>(List.of("git"));
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(false).start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes());
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroy();
        return null;
      }
      if (p.exitValue() != 0) {
        return null;
      }
      return out;
    } catch (Exception e) {
      return null;
    }
  }
}
