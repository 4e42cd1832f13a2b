package dev.fencepost.history;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The checker's verdict: one counter per safety check (each must be 0), a bounded sample of
 * offending ids per counter, and liveness figures (informative, never a failure).
 */
public record CheckReport(Map<String, Counter> safety, Map<String, Object> liveness) {

  /** At most this many offending ids are kept per check. */
  public static final int SAMPLE_LIMIT = 10;

  /** Every safety check, in report order. */
  public static final List<String> CHECKS =
      List.of(
          "overlapping_grants",
          "token_regressions",
          "token_reissued_after_restore",
          "release_before_acquire",
          "guard_accepted_lower_token",
          "effect_without_grant",
          "duplicate_rail_movement",
          "movement_for_ambiguous_payout",
          "unbalanced_group",
          "balance_not_ledger_sum",
          "multiple_postings",
          "transition_out_of_terminal");

  /** One check's count and a sample of what it counted. */
  public record Counter(long count, List<String> sample) {}

  /** True when every safety counter is 0. */
  public boolean safe() {
    return safety.values().stream().allMatch(c -> c.count() == 0);
  }

  public long count(String check) {
    Counter counter = safety.get(check);
    if (counter == null) {
      throw new IllegalArgumentException("no such check: " + check);
    }
    return counter.count();
  }

  /** The report as one JSON document. */
  public String toJson() {
    return HistoryFiles.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(this);
  }

  /** The report as a Markdown section (a table of counters, then samples, then liveness). */
  public String toMarkdown(String title) {
    StringBuilder md = new StringBuilder();
    md.append("## ").append(title).append("\n\n");
    md.append("Verdict: **").append(safe() ? "SAFE" : "VIOLATED").append("**");
    md.append(" (every safety counter must be 0).\n\n");
    md.append("| safety check | count | sample |\n|---|---:|---|\n");
    for (Map.Entry<String, Counter> e : safety.entrySet()) {
      Counter c = e.getValue();
      md.append("| `")
          .append(e.getKey())
          .append("` | ")
          .append(c.count())
          .append(" | ")
          .append(c.sample().isEmpty() ? "" : escape(String.join("; ", c.sample())))
          .append(" |\n");
    }
    md.append("\n| liveness figure | value |\n|---|---|\n");
    for (Map.Entry<String, Object> e : liveness.entrySet()) {
      md.append("| ")
          .append(e.getKey())
          .append(" | ")
          .append(escape(String.valueOf(e.getValue())))
          .append(" |\n");
    }
    return md.toString();
  }

  private static String escape(String text) {
    return text.replace("|", "\\|").replace("\n", " ");
  }

  /** Collects counters in {@link #CHECKS} order. */
  static final class Builder {
    private final Map<String, Long> counts = new LinkedHashMap<>();
    private final Map<String, List<String>> samples = new LinkedHashMap<>();
    final Map<String, Object> liveness = new LinkedHashMap<>();

    Builder() {
      for (String check : CHECKS) {
        counts.put(check, 0L);
        samples.put(check, new ArrayList<>());
      }
    }

    void violation(String check, String id) {
      if (!counts.containsKey(check)) {
        throw new IllegalArgumentException("no such check: " + check);
      }
      counts.merge(check, 1L, Long::sum);
      List<String> sample = samples.get(check);
      if (sample.size() < SAMPLE_LIMIT) {
        sample.add(id);
      }
    }

    CheckReport build() {
      Map<String, Counter> safety = new LinkedHashMap<>();
      for (String check : CHECKS) {
        safety.put(check, new Counter(counts.get(check), List.copyOf(samples.get(check))));
      }
      return new CheckReport(safety, liveness);
    }
  }
}
