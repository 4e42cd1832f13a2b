package dev.fencepost.reconciliation;

import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.LedgerAudit;
import dev.fencepost.payment.PaymentResource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The comparison (FR-26, UC-07): payout state and ledger (paydb), submissions (the proxy's read
 * API) and movements (the rail's camt.053 statements, ADR 0176), classified into {@link
 * Discrepancy} classes. It changes no store it compares: its only writes are the record of the
 * statement entries it read ({@link StatementEntryStore}), the reconciler's own evidence, and the
 * working copy of the window's submissions it compares a page at a time ({@link
 * WindowSubmissionStore}), which is what "detect, never repair" means in code. The rules per class
 * and why: ADR 0070 and docs/reconciliation.md.
 */
public class Detector {

  private final PaydbReads reads;
  private final PaymentResource paydb;
  private final SubmissionSource proxy;
  private final StatementScan scan;
  private final StatementEntryStore entries;
  private final WindowSubmissionStore copies;
  private final int pageSize;
  private final ReconciliationSettings settings;

  public Detector(
      PaydbReads reads,
      PaymentResource paydb,
      SubmissionSource proxy,
      StatementSource statements,
      StatementEntryStore entries,
      WindowSubmissionStore copies,
      ReconciliationSettings settings) {
    this(reads, paydb, proxy, statements, entries, copies, settings, PAGE);
  }

  /**
   * The same, comparing {@code pageSize} submissions and references a page (tests go down to one).
   */
  Detector(
      PaydbReads reads,
      PaymentResource paydb,
      SubmissionSource proxy,
      StatementSource statements,
      StatementEntryStore entries,
      WindowSubmissionStore copies,
      ReconciliationSettings settings,
      int pageSize) {
    if (pageSize < 1) {
      throw new IllegalArgumentException("pageSize must be positive");
    }
    this.pageSize = pageSize;
    this.reads = reads;
    this.paydb = paydb;
    this.proxy = proxy;
    this.scan = new StatementScan(statements, entries, reads, settings);
    this.entries = entries;
    this.copies = copies;
    this.settings = settings;
  }

  /** The statement side of the comparison, as a chunk-oriented pass (ADR 0178). */
  StatementScan scan() {
    return scan;
  }

  /** The settings this detector compares with. */
  ReconciliationSettings settings() {
    return settings;
  }

  /**
   * Scans the window's statement ({@link StatementScan}, chunks of 500 entries) under the key
   * {@code scanKey}, then compares.
   */
  public Detection scanAndDetect(
      ReconciliationWindow window, Instant now, List<Finding> refusals, String scanKey) {
    scan.scan(window, scanKey, 500);
    return detect(window, now, refusals, scanKey);
  }

  /**
   * The same, also reporting the resolver's refusals of this run ({@link
   * ResolutionSummary#contentMismatches()}): a payout whose proxy record is not the payout stays
   * ambiguous, and is a finding on every run until an operator acts, not only while its submission
   * is inside the window.
   *
   * <p>What is held at a time is one page (ADR 0187): the window's submissions are copied from the
   * proxy into paydb a page at a time ({@link WindowSubmissionStore}), then compared a page at a
   * time with their payouts and statement entries; the references the statements moved without a
   * submission, and the window's postings, are read in keyset pages too. The copy is deleted when
   * the comparison ends, however it ends.
   */
  public Detection detect(
      ReconciliationWindow window, Instant now, List<Finding> refusals, String scanKey) {
    Collector out = new Collector(settings.maxFindingsPerClass());

    // The window's statement was scanned (ADR 0178): its entries are recorded by entry reference
    // and what the statements alone show is recorded under the scan's key. The references moved
    // in the window, and the recorded history of those and of the window's submissions, are read
    // from the record (ADR 0176).
    scanned(scanKey, out);

    copies.delete(scanKey);
    try {
      proxy.forEachPage(window, page -> copies.copy(scanKey, page));
      long submissionCount = copies.count(scanKey);

      Set<String> refused = new HashSet<>();
      for (Finding refusal : refusals) {
        if (refusal.payoutId() != null) {
          refused.add(refusal.payoutId());
        }
      }
      Set<String> refusedAndFound = new HashSet<>();
      long afterId = 0;
      while (true) {
        List<Submission> page = copies.page(scanKey, afterId, pageSize);
        if (page.isEmpty()) {
          break;
        }
        submissionsPage(page, refused, refusedAndFound, now, out);
        afterId = page.get(page.size() - 1).id();
      }
      for (Finding refusal : refusals) {
        if (refusal.payoutId() == null || refusedAndFound.add(refusal.payoutId())) {
          out.add(refusal);
        }
      }

      movementsWithoutSubmission(window, scanKey, out);
      postingsWithoutSubmission(window, scanKey, out);
      ledger(out);
      concurrentInFlight(out);
      ambiguousBeyondSla(now, out);
      return new Detection(
          out.counts,
          out.findings,
          new Detection.Reads(
              entries.countBookedIn(window), entries.countFirstReadBy(scanKey), submissionCount));
    } finally {
      copies.delete(scanKey);
    }
  }

  /** Submissions and references compared per page by default (ADR 0187). */
  static final int PAGE = 500;

  /**
   * One page of the window's submissions: their content against their payouts, then whether money
   * they moved was posted. {@code refused} are the payouts the resolver refused; those found here
   * are added to {@code refusedAndFound}, so that a refusal is not reported twice.
   */
  private void submissionsPage(
      List<Submission> page,
      Set<String> refused,
      Set<String> refusedAndFound,
      Instant now,
      Collector out) {
    Map<String, PaydbReads.PayoutFacts> payoutById =
        reads.byId(page.stream().map(Submission::payoutId).toList());
    Set<String> mismatched = contentMismatches(page, payoutById, out);
    for (String id : mismatched) {
      if (refused.contains(id)) {
        refusedAndFound.add(id);
      }
    }
    Set<String> refs = new HashSet<>();
    for (Submission s : page) {
      refs.add(s.clientReference());
    }
    Map<String, List<RailMovement>> movementsByRef = new HashMap<>();
    for (StatementEntry e : entries.byEndToEndId(refs)) {
      movementsByRef.computeIfAbsent(e.endToEndId(), k -> new ArrayList<>()).add(e.movement());
    }
    // A submission's reference is almost always its own payout's: only the others are looked up.
    Map<String, PaydbReads.PayoutFacts> payoutByRef = new HashMap<>();
    payoutById.values().forEach(p -> payoutByRef.put(p.clientReference(), p));
    Set<String> unknown = new HashSet<>(refs);
    unknown.removeAll(payoutByRef.keySet());
    payoutByRef.putAll(reads.byClientReference(unknown));
    submissionsWithoutPosting(
        page.stream().filter(s -> !mismatched.contains(s.payoutId())).toList(),
        movementsByRef,
        payoutByRef,
        now,
        out);
  }

  /**
   * ADR 0140: a submission in the window whose account, amount, currency, beneficiary or client
   * reference is not that of the paydb payout with its id. One finding per payout. Returns the
   * payout ids found, whose submissions are this class's only (they are not also a missing posting:
   * the money was never this payout's).
   */
  private Set<String> contentMismatches(
      List<Submission> submissions, Map<String, PaydbReads.PayoutFacts> payoutById, Collector out) {
    Set<String> found = new HashSet<>();
    for (Submission s : submissions) {
      PaydbReads.PayoutFacts payout = payoutById.get(s.payoutId());
      if (payout == null) {
        continue;
      }
      List<String> differences = payout.content().differences(s.content());
      if (differences.isEmpty() || !found.add(s.payoutId())) {
        continue;
      }
      out.add(
          new Finding(
              Discrepancy.SUBMISSION_CONTENT_MISMATCH,
              payout.payoutId(),
              payout.payoutId(),
              payout.accountId(),
              "proxy submission "
                  + s.id()
                  + " under this payout's id differs in "
                  + String.join(",", differences)
                  + ": submitted account "
                  + s.accountId()
                  + ", amount "
                  + s.amountMinor()
                  + " "
                  + s.currency()
                  + ", beneficiary "
                  + s.beneficiaryRef()
                  + ", reference "
                  + s.clientReference()
                  + " (outcome "
                  + s.outcome()
                  + "); payout state "
                  + payout.state()));
    }
    return found;
  }

  /**
   * What the scan of the window's statement found from the statements alone (ADR 0178): an exact
   * count per class, and at most {@code maxFindingsPerClass} findings of each.
   */
  private void scanned(String scanKey, Collector out) {
    for (Map.Entry<Discrepancy, Long> c : entries.scanCounts(scanKey).entrySet()) {
      out.counts.merge(c.getKey(), c.getValue(), Long::sum);
      out.findings.addAll(
          entries.scanFindings(scanKey, c.getKey(), settings.maxFindingsPerClass()));
    }
  }

  /**
   * INV-07: money left under a reference the proxy never recorded a submission for. The references
   * the window's statement entries name and its submissions do not carry are read in pages; each
   * one that is a payout's is looked up at the proxy, since its submission may lie in another
   * window.
   */
  private void movementsWithoutSubmission(
      ReconciliationWindow window, String scanKey, Collector out) {
    String after = "";
    while (true) {
      List<String> refs = copies.referencesMovedWithoutSubmission(scanKey, window, after, pageSize);
      if (refs.isEmpty()) {
        return;
      }
      Map<String, PaydbReads.PayoutFacts> payoutByRef = reads.byClientReference(refs);
      for (String ref : refs) {
        PaydbReads.PayoutFacts payout = payoutByRef.get(ref);
        if (payout == null) {
          continue; // the scan's MOVEMENT_WITHOUT_PAYOUT (ADR 0178)
        }
        Optional<Submission> recorded = proxy.submission(payout.payoutId());
        if (recorded.isEmpty() || !ref.equals(recorded.get().clientReference())) {
          out.add(
              new Finding(
                  Discrepancy.RAIL_MOVEMENT_WITHOUT_SUBMISSION,
                  payout.payoutId(),
                  payout.payoutId(),
                  payout.accountId(),
                  "rail movement for "
                      + ref
                      + " but the proxy has no submission for payout "
                      + payout.payoutId()
                      + " (payout state "
                      + payout.state()
                      + ")"));
        }
      }
      after = refs.get(refs.size() - 1);
    }
  }

  /**
   * Money left (the proxy recorded ACKED, or the rail's statement shows a movement) and paydb has
   * no posting for it. RAIL_AMBIGUOUS payouts are excluded (they are resolved, or age into {@link
   * Discrepancy#AMBIGUOUS_BEYOND_SLA}); a RAIL_ACKED payout gets {@code postingGrace} for a
   * worker's recovery to post it (ADR 0070).
   */
  private void submissionsWithoutPosting(
      List<Submission> submissions,
      Map<String, List<RailMovement>> movementsByRef,
      Map<String, PaydbReads.PayoutFacts> payoutByRef,
      Instant now,
      Collector out) {
    for (Submission s : submissions) {
      boolean moneyMoved =
          s.acked() || !movementsByRef.getOrDefault(s.clientReference(), List.of()).isEmpty();
      if (!moneyMoved) {
        continue;
      }
      PaydbReads.PayoutFacts payout = payoutByRef.get(s.clientReference());
      if (payout == null) {
        out.add(
            new Finding(
                Discrepancy.SUBMISSION_WITHOUT_POSTING,
                s.payoutId(),
                null,
                s.accountId(),
                "submission "
                    + s.id()
                    + " moved money ("
                    + s.outcome()
                    + ") for a payout paydb does not know"));
        continue;
      }
      if (payout.posted() || "RAIL_AMBIGUOUS".equals(payout.state())) {
        continue;
      }
      if ("RAIL_ACKED".equals(payout.state())
          && payout.settledAt() != null
          && Duration.between(payout.settledAt(), now).compareTo(settings.postingGrace()) < 0) {
        continue;
      }
      out.add(
          new Finding(
              Discrepancy.SUBMISSION_WITHOUT_POSTING,
              payout.payoutId(),
              payout.payoutId(),
              payout.accountId(),
              "rail "
                  + (s.acked() ? "acknowledged" : "shows a movement")
                  + " (proxy outcome "
                  + s.outcome()
                  + ") but paydb has no posting; payout state "
                  + payout.state()));
    }
  }

  /**
   * Whether the statements show {@code ref} moving money: from the references already read, else
   * from the recorded entries (a posting's submission may be outside the window).
   */
  private boolean moved(String ref, Map<String, List<RailMovement>> movementsByRef) {
    return !movementsByRef
        .computeIfAbsent(
            ref,
            r ->
                new ArrayList<>(
                    entries.byEndToEndId(List.of(r)).stream()
                        .map(StatementEntry::movement)
                        .toList()))
        .isEmpty();
  }

  /**
   * A posting needs a submission the proxy recorded and that is not a decline. The window's
   * postings are read a page at a time, with their copied submissions; a posting whose submission
   * is not in the window's copy is looked up at the proxy.
   */
  private void postingsWithoutSubmission(
      ReconciliationWindow window, String scanKey, Collector out) {
    reads.forEachPostingPageIn(
        window,
        page -> {
          Map<String, Submission> submissionByPayout =
              copies.byPayoutId(scanKey, page.stream().map(PaydbReads.Posting::payoutId).toList());
          Map<String, List<RailMovement>> movementsByRef = new HashMap<>();
          for (PaydbReads.Posting posting : page) {
            postingWithoutSubmission(posting, submissionByPayout, movementsByRef, out);
          }
        });
  }

  private void postingWithoutSubmission(
      PaydbReads.Posting posting,
      Map<String, Submission> submissionByPayout,
      Map<String, List<RailMovement>> movementsByRef,
      Collector out) {
    {
      Optional<Submission> recorded =
          Optional.ofNullable(submissionByPayout.get(posting.payoutId()))
              .or(() -> proxy.submission(posting.payoutId()));
      String problem = null;
      if (recorded.isEmpty()) {
        problem = "the proxy has no submission for this payout";
      } else if (recorded.get().rejected()) {
        problem = "the proxy recorded the rail declining it";
      } else if (!recorded.get().acked()
          && !moved(recorded.get().clientReference(), movementsByRef)) {
        problem =
            "the proxy recorded outcome "
                + recorded.get().outcome()
                + " and the rail statement shows no movement";
      }
      if (problem != null) {
        out.add(
            new Finding(
                Discrepancy.POSTING_WITHOUT_SUBMISSION,
                posting.payoutId(),
                posting.payoutId(),
                posting.accountId(),
                "ledger group " + posting.groupId() + " posts payout: " + problem));
      }
    }
  }

  /** INV-03 through payment-resource's own assertions (balances, groups, global sum, ADR 0033). */
  private void ledger(Collector out) {
    LedgerAudit.Report report = paydb.ledgerAudit().check(settings.maxFindingsPerClass());
    long count = report.balanceDriftCount() + report.unbalancedGroupCount();
    for (LedgerAudit.BalanceDrift drift : report.balanceDrifts()) {
      out.findings.add(
          new Finding(
              Discrepancy.LEDGER_IMBALANCE,
              drift.accountId().value(),
              null,
              drift.accountId().value(),
              "balance "
                  + drift.balanceMinor()
                  + " but ledger entries sum to "
                  + drift.ledgerSum()));
    }
    for (LedgerAudit.UnbalancedGroup group : report.unbalancedGroups()) {
      out.findings.add(
          new Finding(
              Discrepancy.LEDGER_IMBALANCE,
              group.groupId().toString(),
              null,
              null,
              "ledger group sums to " + group.sum() + " over " + group.legs() + " legs"));
    }
    if (report.globalSum().signum() != 0) {
      count++;
      out.findings.add(
          new Finding(
              Discrepancy.LEDGER_IMBALANCE,
              "ledger",
              null,
              null,
              "all ledger entries sum to " + report.globalSum() + ", not 0 (ADR 0033)"));
    }
    out.counts.merge(Discrepancy.LEDGER_IMBALANCE, count, Long::sum);
  }

  /** the lock allows one payout in flight per account; more means INV-01 was bypassed. */
  private void concurrentInFlight(Collector out) {
    for (AccountId account : paydb.accountsWithConcurrentInFlight(1000)) {
      out.add(
          new Finding(
              Discrepancy.CONCURRENT_IN_FLIGHT,
              account.value(),
              null,
              account.value(),
              "more than one non-terminal payout in flight for the account"));
    }
  }

  /** ambiguity older than the SLA goes to finance (UC-05 step 6). */
  private void ambiguousBeyondSla(Instant now, Collector out) {
    Instant cutoff = now.minus(settings.resolutionSla());
    long count = reads.ambiguousSinceBefore(cutoff);
    if (count == 0) {
      return;
    }
    for (PaydbReads.Ambiguous a : reads.ambiguous(settings.maxFindingsPerClass())) {
      if (a.since().isBefore(cutoff)) {
        out.findings.add(
            new Finding(
                Discrepancy.AMBIGUOUS_BEYOND_SLA,
                a.payoutId(),
                a.payoutId(),
                a.accountId(),
                "ambiguous since "
                    + a.since()
                    + " ("
                    + Duration.between(a.since(), now).toMinutes()
                    + " min, SLA "
                    + settings.resolutionSla().toMinutes()
                    + " min)"));
      }
    }
    out.counts.merge(Discrepancy.AMBIGUOUS_BEYOND_SLA, count, Long::sum);
  }

  private static final class Collector {
    final Map<Discrepancy, Long> counts = new EnumMap<>(Discrepancy.class);
    final Map<Discrepancy, Integer> kept = new EnumMap<>(Discrepancy.class);
    final List<Finding> findings = new ArrayList<>();
    final int max;

    Collector(int max) {
      this.max = max;
    }

    void add(Finding f) {
      counts.merge(f.discrepancy(), 1L, Long::sum);
      if (kept.merge(f.discrepancy(), 1, Integer::sum) <= max) {
        findings.add(f);
      }
    }
  }
}
