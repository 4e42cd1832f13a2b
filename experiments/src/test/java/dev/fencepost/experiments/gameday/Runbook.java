package dev.fencepost.experiments.gameday;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One runbook of the repository's {@code runbooks/}, read so that a game day executes what it says:
 * every query, statement and endpoint a game day runs must appear in the runbook's text (whitespace
 * aside), so a runbook whose command changes or disappears fails its game day.
 */
final class Runbook {

  private final String name;
  private final String text;

  private Runbook(String name, String text) {
    this.name = name;
    this.text = text;
  }

  /** {@code runbooks/<name>.md}, from the repository root this module sits in. */
  static Runbook named(String name) {
    Path file = Repository.root().resolve("runbooks").resolve(name + ".md");
    try {
      return new Runbook(name, Files.readString(file));
    } catch (IOException e) {
      throw new UncheckedIOException("no runbook " + file, e);
    }
  }

  String name() {
    return name;
  }

  String path() {
    return "runbooks/" + name + ".md";
  }

  /** Fails unless the runbook says {@code command} (compared with runs of whitespace as one). */
  String requireSays(String command) {
    if (!squash(text).contains(squash(command))) {
      throw new AssertionError(path() + " does not say: " + command);
    }
    return command;
  }

  private static String squash(String s) {
    return s.replaceAll("\\s+", " ").trim();
  }

  /** The repository root: the parent of this module's directory (Maven runs tests there). */
  static final class Repository {
    private Repository() {}

    static Path root() {
      Path here = Path.of("").toAbsolutePath();
      Path candidate = here;
      while (candidate != null && !Files.isDirectory(candidate.resolve("runbooks"))) {
        candidate = candidate.getParent();
      }
      if (candidate == null) {
        throw new IllegalStateException("no runbooks/ above " + here);
      }
      return candidate;
    }
  }
}
