package dev.fencepost.history;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code java -jar history-checker-<version>-exec.jar <run-dir> [--key-prefix payout:]}: reads the
 * run directory, writes {@code check-report.json}, {@code check-report.md} and, when the run has
 * workers, {@code timeline.svg} into it, prints the Markdown, and exits 0 when every safety counter
 * is 0, 1 when any is not, 2 when the input cannot be read or the arguments are wrong.
 */
public final class Main {

  public static final int SAFE = 0;
  public static final int VIOLATED = 1;
  public static final int UNUSABLE = 2;

  private Main() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** The CLI without {@code System.exit}, for tests and for scenarios that embed the checker. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length > 0 && args[0].equals("extract")) {
      return extract(java.util.Arrays.copyOfRange(args, 1, args.length), err);
    }
    Path runDir = null;
    String keyPrefix = Checker.DEFAULT_KEY_PREFIX;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--key-prefix") && i + 1 < args.length) {
        keyPrefix = args[++i];
      } else if (!args[i].startsWith("--") && runDir == null) {
        runDir = Path.of(args[i]);
      } else {
        err.println("unknown argument: " + args[i]);
        return usage(err);
      }
    }
    if (runDir == null) {
      return usage(err);
    }
    History history;
    try {
      history = HistoryFiles.read(runDir);
    } catch (HistoryFormatException e) {
      err.println("history-checker: " + e.getMessage());
      return UNUSABLE;
    }
    CheckReport report = new Checker(keyPrefix).check(history);
    String markdown = report.toMarkdown("History check: " + runDir.getFileName());
    try {
      Files.writeString(
          runDir.resolve("check-report.json"), report.toJson(), StandardCharsets.UTF_8);
      Files.writeString(runDir.resolve("check-report.md"), markdown, StandardCharsets.UTF_8);
      String svg = Timeline.render(history, "Timeline: " + runDir.getFileName());
      if (svg != null) {
        Files.writeString(runDir.resolve("timeline.svg"), svg, StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      err.println("history-checker: cannot write the report into " + runDir + ": " + e);
      return UNUSABLE;
    }
    out.print(markdown);
    return report.safe() ? SAFE : VIOLATED;
  }

  /**
   * {@code extract <run-dir> [--paydb <jdbc-url>] [--proxydb <jdbc-url>] [--lockdb <jdbc-url>]
   * [--rail <stub-base-url>]}: appends the final state of each named store to the run directory.
   * Run it once, at the end of a run (credentials go in the JDBC URL: {@code ?user=&password=}; the
   * stub's movements need an operator's or the reconciler's bearer token in the environment
   * variable {@code FENCEPOST_TOKEN}, kept off the command line where other users could read it).
   */
  static int extract(String[] args, PrintStream err) {
    if (args.length == 0 || args[0].startsWith("--") || args.length % 2 == 0) {
      return usage(err);
    }
    Path runDir = Path.of(args[0]);
    try {
      for (int i = 1; i < args.length; i += 2) {
        String source = args[i];
        String where = args[i + 1];
        java.util.List<Object> records;
        if (source.equals("--rail")) {
          records =
              Extractors.railMovements(
                  java.net.URI.create(where), System.getenv("FENCEPOST_TOKEN"));
        } else {
          try (java.sql.Connection c = java.sql.DriverManager.getConnection(where)) {
            records =
                switch (source) {
                  case "--paydb" -> Extractors.paydb(c);
                  case "--proxydb" -> Extractors.proxydb(c);
                  case "--lockdb" -> Extractors.lockdb(c);
                  default -> null;
                };
          }
        }
        if (records == null) {
          err.println("unknown source: " + source);
          return usage(err);
        }
        HistoryFiles.append(runDir, records);
      }
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      err.println("history-checker extract: " + e);
      return UNUSABLE;
    }
    return SAFE;
  }

  private static int usage(PrintStream err) {
    err.println("usage: history-checker <run-dir> [--key-prefix payout:]");
    err.println(
        "       history-checker extract <run-dir> [--paydb <jdbc-url>] [--proxydb <jdbc-url>]"
            + " [--lockdb <jdbc-url>] [--rail <stub-base-url>]");
    return UNUSABLE;
  }
}
