package dev.fencepost.ops;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The link between alerts and runbooks, both ways (ADR 0175): each alert's {@code runbook_url} is a
 * repository path {@code runbooks/<name>.md} of a file that exists and names the alert, and each
 * runbook's {@code Alerts:} line lists exactly the alerts that link it ({@code Alerts: none} for a
 * procedure no alert links).
 */
final class RunbookLinks {

  static final Pattern LINK = Pattern.compile("runbooks/[a-z0-9][a-z0-9-]*\\.md");
  private static final Pattern ALERTS_LINE = Pattern.compile("(?m)^Alerts: (.+)$");
  private static final Pattern NAME = Pattern.compile("`(Fencepost[A-Za-z0-9]+)`");

  private RunbookLinks() {}

  /** What is wrong, one sentence each; empty when every link holds. */
  static List<String> problems(Path rulesFile, Path repositoryRoot) {
    List<String> problems = new ArrayList<>();
    Map<String, Set<String>> linkedBy = new TreeMap<>();
    for (Repository.Alert alert : Repository.alerts(rulesFile)) {
      String url = alert.annotations().get("runbook_url");
      if (url == null || !LINK.matcher(url).matches()) {
        problems.add(alert.name() + " has runbook_url " + url + ", not a path runbooks/<name>.md");
        continue;
      }
      linkedBy.computeIfAbsent(url, u -> new TreeSet<>()).add(alert.name());
      Path runbook = repositoryRoot.resolve(url);
      if (!Files.isRegularFile(runbook)) {
        problems.add(alert.name() + " links " + url + ", which does not exist");
      } else if (!read(runbook).contains(alert.name())) {
        problems.add(alert.name() + " links " + url + ", which does not name it");
      }
    }
    for (Path runbook : runbooks(repositoryRoot.resolve("runbooks"))) {
      String url = "runbooks/" + runbook.getFileName();
      Matcher line = ALERTS_LINE.matcher(read(runbook));
      if (!line.find()) {
        problems.add(url + " has no 'Alerts:' line");
        continue;
      }
      Set<String> named = new TreeSet<>();
      Matcher name = NAME.matcher(line.group(1));
      while (name.find()) {
        named.add(name.group(1));
      }
      if (named.isEmpty() && !line.group(1).trim().startsWith("none")) {
        problems.add(url + " names no alert and does not say 'Alerts: none'");
      }
      Set<String> linking = linkedBy.getOrDefault(url, Set.of());
      if (!named.equals(linking)) {
        problems.add(url + " lists alerts " + named + " but is linked by " + linking);
      }
    }
    return problems;
  }

  static List<Path> runbooks(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(p -> p.getFileName().toString().endsWith(".md"))
          .filter(p -> !p.getFileName().toString().equals("README.md"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
