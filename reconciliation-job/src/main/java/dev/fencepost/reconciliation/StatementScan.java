package dev.fencepost.reconciliation;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.batch.infrastructure.item.Chunk;
import org.springframework.batch.infrastructure.item.ExecutionContext;
import org.springframework.batch.infrastructure.item.ItemProcessor;
import org.springframework.batch.infrastructure.item.ItemStreamReader;
import org.springframework.batch.infrastructure.item.ItemWriter;

/**
 * The statement side of a run as a chunk-oriented pass (ADR 0178): a reader of the window's
 * statement entries in pages, each page's entries handed out with the paydb facts and the recorded
 * history of their client references ({@link EntryReader}); a processor that classifies each entry
 * from the statements alone ({@link EntryClassifier}); and a writer that records the chunk's
 * entries and findings in one paydb transaction ({@link EntryWriter}). {@code reconciliationJob}
 * runs them as its {@code entries} step; {@link #scan} drives the same three chunk by chunk where
 * there is no job (a run called directly). What is held is one page and one chunk.
 *
 * <p>Every write is keyed (an entry by its reference, a finding by scan, class and subject), so a
 * chunk processed twice, after a crash between paydb's commit and the job repository's, changes
 * nothing the second time; a restarted step resumes from the position the job repository saved at
 * its last chunk.
 */
public final class StatementScan {

  /** One pass of the scan: a window and the key its findings are recorded under. */
  public record Pass(ReconciliationWindow window, String scanKey) {}

  /** An entry with what its classification needs, read with its page. */
  public record EntryFacts(
      Pass pass,
      StatementEntry entry,
      PaydbReads.PayoutFacts payout,
      List<StatementEntry> reference,
      java.time.Instant now) {}

  /** An entry and what it is found to be; {@code findings} is empty when it is in order. */
  public record Classified(Pass pass, StatementEntry entry, List<Finding> findings) {}

  private final StatementSource source;
  private final StatementEntryStore entries;
  private final PaydbReads reads;
  private final ReconciliationSettings settings;

  public StatementScan(
      StatementSource source,
      StatementEntryStore entries,
      PaydbReads reads,
      ReconciliationSettings settings) {
    this.source = source;
    this.entries = entries;
    this.reads = reads;
    this.settings = settings;
  }

  StatementSource source() {
    return source;
  }

  StatementEntryStore entries() {
    return entries;
  }

  public EntryReader reader(List<Pass> passes) {
    return new EntryReader(passes);
  }

  public EntryClassifier processor() {
    return new EntryClassifier(settings);
  }

  public EntryWriter writer() {
    return new EntryWriter();
  }

  /**
   * The scan of one window without a job: the same reader, processor and writer, chunk by chunk.
   */
  public void scan(ReconciliationWindow window, String scanKey, int chunkSize) {
    EntryReader reader = reader(List.of(new Pass(window, scanKey)));
    EntryClassifier processor = processor();
    EntryWriter writer = writer();
    reader.open(new ExecutionContext());
    try {
      while (true) {
        Chunk<Classified> chunk = new Chunk<>();
        EntryFacts item;
        while (chunk.size() < chunkSize && (item = reader.read()) != null) {
          chunk.add(processor.process(item));
        }
        if (chunk.isEmpty()) {
          return;
        }
        writer.write(chunk);
      }
    } finally {
      reader.close();
    }
  }

  /**
   * The entries of each pass's window, page by page; restartable: the position (pass, page, entry
   * in the page) is saved at every chunk and resumed from.
   */
  public final class EntryReader implements ItemStreamReader<EntryFacts> {

    static final String PASS = "statementScan.pass";
    static final String PAGE = "statementScan.page";
    static final String INDEX = "statementScan.index";

    private final List<Pass> passes;
    private int passIndex;
    private int page = 1;
    private int index;
    private List<EntryFacts> buffer;
    private boolean lastPage;

    EntryReader(List<Pass> passes) {
      this.passes = List.copyOf(passes);
    }

    @Override
    public void open(ExecutionContext context) {
      passIndex = context.getInt(PASS, 0);
      page = context.getInt(PAGE, 1);
      index = context.getInt(INDEX, 0);
      buffer = null;
    }

    /** Saves where the next item is: past an exhausted page, the next page (or pass). */
    @Override
    public void update(ExecutionContext context) {
      int p = passIndex;
      int pg = page;
      int i = index;
      if (buffer != null && index >= buffer.size()) {
        if (lastPage) {
          p++;
          pg = 1;
        } else {
          pg++;
        }
        i = 0;
      }
      context.putInt(PASS, p);
      context.putInt(PAGE, pg);
      context.putInt(INDEX, i);
    }

    @Override
    public EntryFacts read() {
      while (passIndex < passes.size()) {
        if (buffer == null) {
          load();
        }
        if (index < buffer.size()) {
          return buffer.get(index++);
        }
        if (lastPage) {
          passIndex++;
          page = 1;
        } else {
          page++;
        }
        index = 0;
        buffer = null;
      }
      return null;
    }

    /** The current page, with the facts of its references in one query each. */
    private void load() {
      Pass pass = passes.get(passIndex);
      StatementPage read = source.read(pass.window(), page);
      lastPage = read.last();
      Set<String> refs = new LinkedHashSet<>();
      read.entries().forEach(e -> refs.add(e.endToEndId()));
      Map<String, PaydbReads.PayoutFacts> payouts = reads.byClientReference(refs);
      Map<String, Map<String, StatementEntry>> history = new HashMap<>();
      for (StatementEntry e : entries.byEndToEndId(refs)) {
        history.computeIfAbsent(e.endToEndId(), k -> new HashMap<>()).put(e.entryReference(), e);
      }
      for (StatementEntry e : read.entries()) {
        history
            .computeIfAbsent(e.endToEndId(), k -> new HashMap<>())
            .putIfAbsent(e.entryReference(), e);
      }
      java.time.Instant now = reads.now();
      List<EntryFacts> facts = new ArrayList<>();
      for (StatementEntry e : read.entries()) {
        List<StatementEntry> all = new ArrayList<>(history.get(e.endToEndId()).values());
        all.sort(ORDER);
        facts.add(new EntryFacts(pass, e, payouts.get(e.endToEndId()), all, now));
      }
      buffer = facts;
    }
  }

  static final Comparator<StatementEntry> ORDER =
      Comparator.comparing(StatementEntry::bookedAt).thenComparing(StatementEntry::entryReference);

  /**
   * Classifies an entry from the statements and paydb alone (ADR 0178). A reference with more than
   * one entry is one {@link Discrepancy#DUPLICATE_SUBMISSION}, reported at its latest entry, so the
   * other entries of it (in this window or an earlier one) do not report it again. An entry naming
   * no payout is {@link Discrepancy#MOVEMENT_WITHOUT_PAYOUT}; one whose amount, currency or stated
   * beneficiary is not its payout's, {@link Discrepancy#MOVEMENT_CONTENT_MISMATCH}; one for a
   * payout still CLAIMED, RAIL_SUBMITTED or RAIL_AMBIGUOUS once the settlement window has passed
   * since the entry was booked, {@link Discrepancy#MOVEMENT_FOR_UNSETTLED_PAYOUT}.
   */
  public static final class EntryClassifier implements ItemProcessor<EntryFacts, Classified> {

    private final ReconciliationSettings settings;

    EntryClassifier(ReconciliationSettings settings) {
      this.settings = settings;
    }

    @Override
    public Classified process(EntryFacts item) {
      List<Finding> findings = new ArrayList<>();
      StatementEntry e = item.entry();
      List<StatementEntry> all = item.reference();
      PaydbReads.PayoutFacts payout = item.payout();
      if (all.size() > 1 && all.get(all.size() - 1).entryReference().equals(e.entryReference())) {
        findings.add(
            new Finding(
                Discrepancy.DUPLICATE_SUBMISSION,
                payout != null ? payout.payoutId() : e.endToEndId(),
                payout != null ? payout.payoutId() : null,
                payout != null ? payout.accountId() : null,
                all.size()
                    + " rail movements for client reference "
                    + e.endToEndId()
                    + ": "
                    + all.stream().map(StatementEntry::entryReference).toList()));
      }
      if (payout == null) {
        findings.add(
            new Finding(
                Discrepancy.MOVEMENT_WITHOUT_PAYOUT,
                e.endToEndId(),
                null,
                null,
                "statement entry "
                    + e.entryReference()
                    + " moved "
                    + e.amountMinor()
                    + " "
                    + e.currency()
                    + " to "
                    + e.beneficiaryRef()
                    + " under client reference "
                    + e.endToEndId()
                    + ", which matches no payout in paydb"));
        return new Classified(item.pass(), e, findings);
      }
      List<String> differences = new ArrayList<>();
      if (e.amountMinor() != payout.amountMinor()) {
        differences.add("amount " + e.amountMinor() + " (payout " + payout.amountMinor() + ")");
      }
      if (!e.currency().equals(payout.currency())) {
        differences.add("currency " + e.currency() + " (payout " + payout.currency() + ")");
      }
      if (e.beneficiaryRef() != null && !e.beneficiaryRef().equals(payout.beneficiaryRef())) {
        differences.add(
            "beneficiary " + e.beneficiaryRef() + " (payout " + payout.beneficiaryRef() + ")");
      }
      if (!differences.isEmpty()) {
        findings.add(
            new Finding(
                Discrepancy.MOVEMENT_CONTENT_MISMATCH,
                payout.payoutId(),
                payout.payoutId(),
                payout.accountId(),
                "statement entry "
                    + e.entryReference()
                    + " for this payout differs in "
                    + String.join(", ", differences)
                    + "; payout state "
                    + payout.state()));
      }
      if (UNSETTLED.contains(payout.state())
          && !e.bookedAt().plus(settings.settlementWindow()).isAfter(item.now())) {
        findings.add(
            new Finding(
                Discrepancy.MOVEMENT_FOR_UNSETTLED_PAYOUT,
                payout.payoutId(),
                payout.payoutId(),
                payout.accountId(),
                "statement entry "
                    + e.entryReference()
                    + " booked at "
                    + e.bookedAt()
                    + " shows the money left, but the payout is still "
                    + payout.state()
                    + " past the settlement window of "
                    + settings.settlementWindow().toSeconds()
                    + " s"));
      }
      return new Classified(item.pass(), e, findings);
    }

    private static final java.util.Set<String> UNSETTLED =
        java.util.Set.of("CLAIMED", "RAIL_SUBMITTED", "RAIL_AMBIGUOUS");
  }

  /** Records a chunk's entries and findings, in one paydb transaction. */
  public final class EntryWriter implements ItemWriter<Classified> {

    @Override
    public void write(Chunk<? extends Classified> chunk) {
      entries.inTransaction(
          () -> {
            Map<String, List<StatementEntry>> byScan = new HashMap<>();
            for (Classified c : chunk) {
              byScan.computeIfAbsent(c.pass().scanKey(), k -> new ArrayList<>()).add(c.entry());
            }
            byScan.forEach((scan, list) -> entries.record(list, source.name(), scan));
            for (Classified c : chunk) {
              for (Finding f : c.findings()) {
                entries.recordFinding(c.pass().scanKey(), f);
              }
            }
          });
    }
  }
}
