package dev.fencepost.reconciliation;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What one comparison found: an exact count for every class (zero included) and the findings
 * themselves, at most {@code maxFindingsPerClass} of each.
 */
public record Detection(Map<Discrepancy, Long> counts, List<Finding> findings) {

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
