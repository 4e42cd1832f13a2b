package dev.fencepost.traceability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A tab-separated list of {@code ID <tab> text}, one per line; blank lines and lines starting with
 * {@code #} are ignored. Used for the catalogue (ID and our one-line explanation) and for the
 * allow-list (ID and the reviewed reason why it has no tagged test).
 */
final class Catalogue {

  private Catalogue() {}

  static SortedMap<RequirementId, String> read(Path tsv) throws IOException {
    SortedMap<RequirementId, String> entries = new TreeMap<>();
    int lineNumber = 0;
    for (String line : Files.readAllLines(tsv, StandardCharsets.UTF_8)) {
      lineNumber++;
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int tab = line.indexOf('\t');
      String text = tab < 0 ? "" : line.substring(tab + 1).strip();
      if (tab < 0 || text.isEmpty()) {
        throw new IllegalArgumentException(
            tsv + ":" + lineNumber + ": expected 'ID<tab>text', got '" + line + "'");
      }
      RequirementId id = RequirementId.parse(line.substring(0, tab));
      if (entries.put(id, text) != null) {
        throw new IllegalArgumentException(tsv + ":" + lineNumber + ": " + id + " listed twice");
      }
    }
    return Collections.unmodifiableSortedMap(entries);
  }
}
