package dev.fencepost.reconciliation;

import java.util.List;

/**
 * One page of a statement: at most the source's page size of entries, and whether it was the last.
 */
public record StatementPage(List<StatementEntry> entries, boolean last) {

  public StatementPage {
    entries = List.copyOf(entries);
  }
}
