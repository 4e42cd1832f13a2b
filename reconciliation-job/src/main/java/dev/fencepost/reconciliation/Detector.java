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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The comparison (FR-26, UC-07): payout state and ledger (paydb), submissions (the proxy's read
 * API) and movements (the rail's camt.053 statements, ADR 0176), classified into {@link
 * Discrepancy} classes. It changes no store it compares: its only write is the record of the
 * statement entries it read ({@link StatementEntryStore}), the reconciler's own evidence, which is
 * what "detect, never repair" means in code. The rules per class and why: ADR 0070 and
 * docs/reconciliation.md.
 */
public class Detector {

  private final PaydbReads reads;
  private final PaymentResource paydb;
  private final ProxyReadClient proxy;
  private final StatementScan scan;
  private final StatementEntryStore entries;
  private final ReconciliationSettings settings;

  public Detector(
      PaydbReads reads,
      PaymentResource paydb,
      ProxyReadClient proxy,
      StatementSource statements,
      StatementEntryStore entries,
      ReconciliationSettings settings) {
    this.reads = reads;
    this.paydb = paydb;
    this.proxy = proxy;
    this.scan = new StatementScan(statements, entries, reads, settings);
    this.entries = entries;
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
   */
  public Detection detect(
      ReconciliationWindow window, Instant now, List<Finding> refusals, String scanKey) {
    Collector out = new Collector(settings.maxFindingsPerClass());

    // The window's statement was scanned (ADR 0178): its entries are recorded by entry reference
    // and what the statements alone show is recorded under the scan's key. The references moved
    // in the window, and the recorded history of those and of the window's submissions, are read
    // from the record (ADR 0176).
    Set<String> refsMovedInWindow = entries.endToEndIdsBookedIn(window);
    scanned(scanKey, out);

    List<Submission> submissions = proxy.submissions(window);
    Map<String, Submission> submissionByRef = new HashMap<>();
    Map<String, Submission> submissionByPayout = new HashMap<>();
    for (Submission s : submissions) {
      submissionByRef.put(s.clientReference(), s);
      submissionByPayout.put(s.payoutId(), s);
    }

    Set<String> refs = new HashSet<>(refsMovedInWindow);
    refs.addAll(submissionByRef.keySet());
    Map<String, List<RailMovement>> movementsByRef = new LinkedHashMap<>();
    for (StatementEntry e : entries.byEndToEndId(refs)) {
      movementsByRef.computeIfAbsent(e.endToEndId(), k -> new ArrayList<>()).add(e.movement());
    }
    Map<String, PaydbReads.PayoutFacts> payoutByRef = reads.byClientReference(refs);
    Set<String> mismatched = contentMismatches(submissions, refusals, out);

    movementsWithoutSubmission(refsMovedInWindow, submissionByRef, payoutByRef, out);
    submissionsWithoutPosting(
        submissions.stream().filter(s -> !mismatched.contains(s.payoutId())).toList(),
        movementsByRef,
        payoutByRef,
        now,
        out);
    postingsWithoutSubmission(window, submissionByPayout, movementsByRef, out);
    ledger(out);
    concurrentInFlight(out);
    ambiguousBeyondSla(now, out);
    return new Detection(
        out.counts,
        out.findings,
        new Detection.Reads(
            entries.countBookedIn(window), entries.countFirstReadBy(scanKey), submissions.size()));
  }

  /**
   * ADR 0140: a submission in the window whose account, amount, currency, beneficiary or client
   * reference is not that of the paydb payout with its id; and the payouts the resolver refused for
   * the same reason. One finding per payout. Returns the payout ids found, whose submissions are
   * this class's only (they are not also a missing posting: the money was never this payout's).
   */
  private Set<String> contentMismatches(
      List<Submission> submissions, List<Finding> refusals, Collector out) {
    Map<String, PaydbReads.PayoutFacts> payoutById =
        reads.byId(submissions.stream().map(Submission::payoutId).toList());
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
    for (Finding refusal : refusals) {
      if (refusal.payoutId() == null || found.add(refusal.payoutId())) {
        out.add(refusal);
      }
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

  /** INV-07: money left under a reference the proxy never recorded a submission for. */
  private void movementsWithoutSubmission(
      Set<String> refsMovedInWindow,
      Map<String, Submission> submissionByRef,
      Map<String, PaydbReads.PayoutFacts> payoutByRef,
      Collector out) {
    for (String ref : refsMovedInWindow) {
      if (submissionByRef.containsKey(ref)) {
        continue;
      }
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

  /** A posting needs a submission the proxy recorded and that is not a decline. */
  private void postingsWithoutSubmission(
      ReconciliationWindow window,
      Map<String, Submission> submissionByPayout,
      Map<String, List<RailMovement>> movementsByRef,
      Collector out) {
    reads.forEachPostingIn(
        window,
        posting -> postingWithoutSubmission(posting, submissionByPayout, movementsByRef, out));
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
