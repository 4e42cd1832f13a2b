package dev.fencepost.testsupport.metrics;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * NFR-09 over a Prometheus scrape, the same check for every application: each {@code fencepost_}
 * series has a name of lower-case words, only tag keys from {@link #TAG_KEYS} (a new key is a
 * decision, made here), and values that are short words from a closed set: never one of the
 * identifiers the test used, never a number (a token), never a UUID (a payout or session id). Works
 * on the text so that test code needs no Micrometer of its own.
 */
public final class ScrapeCardinality {

  /** Every tag key a Fencepost meter may carry, across all applications (ADR 0175). */
  public static final Set<String> TAG_KEYS =
      Set.of(
          "guard",
          "reason",
          "check",
          "from",
          "to",
          "event",
          "refusal",
          "operation",
          "code",
          "outcome",
          "backend",
          "limit",
          "state",
          "discrepancy",
          "severity",
          "result",
          "action",
          "mode",
          // Micrometer's own, for histograms and percentiles.
          "le",
          "quantile");

  private static final Pattern SERIES =
      Pattern.compile("^(fencepost_[A-Za-z0-9_:]*)(?:\\{(.*)})?\\s+\\S+.*$");
  private static final Pattern LABEL =
      Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
  private static final Pattern NAME = Pattern.compile("fencepost(_[a-z]+)+");
  private static final Pattern VALUE = Pattern.compile("[A-Za-z][A-Za-z_-]{0,63}");
  private static final Pattern BUCKET = Pattern.compile("[+-]?(Inf|[0-9.eE+-]+)");

  private ScrapeCardinality() {}

  /** What is wrong with the scrape's Fencepost series, one line each; empty when nothing is. */
  public static List<String> problems(String scrape, Collection<String> identifiers) {
    List<String> problems = new ArrayList<>();
    int series = 0;
    for (String line : scrape.split("\n")) {
      Matcher m = SERIES.matcher(line.trim());
      if (!m.matches()) {
        continue;
      }
      series++;
      String name = m.group(1);
      if (!NAME.matcher(name).matches()) {
        problems.add(name + ": not a name of lower-case words");
      }
      if (m.group(2) == null) {
        continue;
      }
      Matcher label = LABEL.matcher(m.group(2));
      while (label.find()) {
        String key = label.group(1);
        String value = label.group(2);
        if (!TAG_KEYS.contains(key)) {
          problems.add(name + ": tag key " + key + " is not one of " + new TreeSet<>(TAG_KEYS));
        } else if (key.equals("le") || key.equals("quantile")) {
          if (!BUCKET.matcher(value).matches()) {
            problems.add(name + ": " + key + "=" + value + " is not a bucket bound");
          }
        } else if (identifiers.contains(value)) {
          problems.add(name + ": " + key + "=" + value + " is an identifier the test used");
        } else if (!VALUE.matcher(value).matches()) {
          problems.add(name + ": " + key + "=" + value + " is not a short word of a closed set");
        }
      }
    }
    if (series == 0) {
      problems.add("the scrape has no fencepost_ series at all");
    }
    return problems;
  }

  /** Fails with every problem listed. */
  public static void assertBounded(String scrape, Collection<String> identifiers) {
    List<String> problems = problems(scrape, identifiers);
    if (!problems.isEmpty()) {
      throw new AssertionError(
          "metrics with unbounded or unknown tags (NFR-09):\n  " + String.join("\n  ", problems));
    }
  }
}
