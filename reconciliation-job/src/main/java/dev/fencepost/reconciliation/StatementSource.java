package dev.fencepost.reconciliation;

import java.util.List;
import java.util.function.Consumer;

/**
 * Where the rail's statements come from (ADR 0176): the rail's own statement endpoint ({@link
 * RailStatementSource}) or the files a bank drops in a directory ({@link
 * DirectoryStatementSource}), chosen by {@code fencepost.reconciliation.statement-source}. Either
 * way a statement is an ISO 20022 camt.053.001.08 document, and the reconciler asks for the entries
 * booked in a window, a page at a time, so that no window is ever held whole. Every failure to read
 * is a {@link SourceUnavailableException}: a run fails rather than report a partial comparison.
 */
public interface StatementSource {

  /**
   * Page {@code page} (1-based) of the entries booked in {@code [window.from, window.to)}, in an
   * order that is stable while the statement does not change.
   */
  StatementPage read(ReconciliationWindow window, int page);

  /** What the source is, for the run's record: {@code rail} or {@code directory}. */
  String name();

  /** Every entry booked in {@code window}, handed over a page at a time. */
  default void forEachPage(ReconciliationWindow window, Consumer<List<StatementEntry>> each) {
    int page = 1;
    StatementPage current;
    do {
      current = read(window, page++);
      each.accept(current.entries());
    } while (!current.last());
  }
}
