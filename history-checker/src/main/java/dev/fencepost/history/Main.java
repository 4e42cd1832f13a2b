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

  private static int usage(PrintStream err) {
    err.println("usage: history-checker <run-dir> [--key-prefix payout:]");
    return UNUSABLE;
  }
}
