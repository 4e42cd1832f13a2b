package dev.fencepost.reconciliation;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What one comparison found: an exact count for every class (zero included) and the findings
 * themselves, at most {@code maxFindingsPerClass} of each; and what it read.
 */
public record Detection(Map<Discrepancy, Long> counts, List<Finding> findings, Reads reads) {

  /**
   * What a comparison read (ADR 0177: recorded per window).
   *
   * @param entriesRead statement entries booked in the window
   * @param entriesNew of those, entries not recorded before (a re-read adds only late ones)
   * @param submissionsRead proxy submissions of the window
   */
  public record Reads(long entriesRead, long entriesNew, long submissionsRead) {
    public static final Reads NONE = new Reads(0, 0, 0);
  }

  public Detection(Map<Discrepancy, Long> counts, List<Finding> findings) {
    this(counts, findings, Reads.NONE);
  }

  public Detection {
    EnumMap<Discrepancy, Long> all = new EnumMap<>(Discrepancy.class);
    for (Discrepancy d : Discrepancy.values()) {
      all.put(d, counts.getOrDefault(d, 0L));
    }
    counts = java.util.Collections.unmodifiableMap(all);
    findings = List.copyOf(findings);
  }

  public long count(Discrepancy discrepancy) {
    return counts.get(discrepancy);
  }
}
