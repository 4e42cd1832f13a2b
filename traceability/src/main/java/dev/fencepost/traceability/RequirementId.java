package dev.fencepost.traceability;

import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A requirement identifier such as {@code INV-02}: a kind and a two-digit number. The kinds are the
 * invariants (INV), use cases (UC), functional (FR) and non-functional (NFR) requirements, and the
 * assumptions (A) that docs/requirements.md explains.
 */
record RequirementId(String kind, int number) implements Comparable<RequirementId> {

  /** Every kind, in the order the page lists them. */
  static final List<String> KINDS = List.of("INV", "UC", "FR", "NFR", "A");

  /** How an ID is written anywhere in the repository's text. */
  static final Pattern CITED = Pattern.compile("\\b(INV|UC|FR|NFR|A)-(\\d{2})\\b");

  private static final Pattern WHOLE = Pattern.compile("(INV|UC|FR|NFR|A)-(\\d{2})");

  private static final Comparator<RequirementId> ORDER =
      Comparator.comparingInt((RequirementId id) -> KINDS.indexOf(id.kind()))
          .thenComparingInt(RequirementId::number);

  /** The ID that {@code text} is exactly, or null (for a tag such as {@code "slow"}). */
  static RequirementId parseOrNull(String text) {
    Matcher m = WHOLE.matcher(text.strip());
    return m.matches() ? new RequirementId(m.group(1), Integer.parseInt(m.group(2))) : null;
  }

  static RequirementId parse(String text) {
    RequirementId id = parseOrNull(text);
    if (id == null) {
      throw new IllegalArgumentException("not a requirement ID: '" + text + "'");
    }
    return id;
  }

  @Override
  public int compareTo(RequirementId other) {
    return ORDER.compare(this, other);
  }

  @Override
  public String toString() {
    return kind + "-" + String.format("%02d", number);
  }
}
