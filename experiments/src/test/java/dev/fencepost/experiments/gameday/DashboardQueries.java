package dev.fencepost.experiments.gameday;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The PromQL of the Grafana dashboards in {@code ops/grafana/}, and the metric names each query
 * reads. The names are found by removing what is not one (strings, label matchers, range and
 * subquery brackets, grouping clauses, numbers and durations) and keeping the identifiers that are
 * not PromQL functions or keywords.
 */
final class DashboardQueries {

  /** One panel's query. */
  record Query(String dashboard, String panel, String expr) {}

  private static final Set<String> KEYWORDS =
      Set.of(
          "and",
          "or",
          "unless",
          "by",
          "without",
          "on",
          "ignoring",
          "group_left",
          "group_right",
          "bool",
          "offset",
          "atan2",
          "inf",
          "nan");

  private static final Pattern IDENTIFIER =
      Pattern.compile("(?<![\\w:$])([a-zA-Z_:][a-zA-Z0-9_:]*)(\\s*\\()?");

  private DashboardQueries() {}

  static Path dir() {
    return Runbook.Repository.root().resolve("ops").resolve("grafana");
  }

  /** Every target expression of every dashboard file. */
  static List<Query> all() {
    JsonMapper json = JsonMapper.builder().build();
    List<Query> queries = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir())) {
      for (Path file : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
        JsonNode dashboard = json.readTree(file.toFile());
        collect(file.getFileName().toString(), dashboard.path("panels"), queries);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return queries;
  }

  private static void collect(String dashboard, JsonNode panels, List<Query> into) {
    for (JsonNode panel : panels) {
      for (JsonNode target : panel.path("targets")) {
        into.add(
            new Query(dashboard, panel.path("title").asString(), target.path("expr").asString()));
      }
      collect(dashboard, panel.path("panels"), into);
    }
  }

  /** The metric names {@code expr} reads. */
  static Set<String> metricNames(String expr) {
    String s = expr.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"");
    s = s.replaceAll("\\{[^}]*}", " ");
    s = s.replaceAll("\\[[^]]*]", " ");
    s = s.replaceAll("(?i)\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ");
    Set<String> names = new TreeSet<>();
    Matcher m = IDENTIFIER.matcher(s);
    while (m.find()) {
      String word = m.group(1);
      boolean function = m.group(2) != null;
      if (function || KEYWORDS.contains(word.toLowerCase())) {
        continue;
      }
      names.add(word);
    }
    return names;
  }
}
