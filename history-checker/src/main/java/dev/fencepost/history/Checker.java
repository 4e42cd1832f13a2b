package dev.fencepost.history;

import dev.fencepost.history.Records.Account;
import dev.fencepost.history.Records.ClientOp;
import dev.fencepost.history.Records.Effect;
import dev.fencepost.history.Records.Event;
import dev.fencepost.history.Records.Grant;
import dev.fencepost.history.Records.GuardDecision;
import dev.fencepost.history.Records.LedgerEntry;
import dev.fencepost.history.Records.Payout;
import dev.fencepost.history.Records.RailMovement;
import dev.fencepost.history.Records.Submission;
import dev.fencepost.history.Records.Transition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The checks of a recorded run, each written from the definitions in docs/history-checker.md and
 * from nothing else in the code base. Pure: a {@link History} in, a {@link CheckReport} out.
 */
public final class Checker {

  /** Lock key of an account's payouts: the key every payout effect must hold a grant on. */
  public static final String DEFAULT_KEY_PREFIX = "payout:";

  static final Set<String> TERMINAL = Set.of("POSTED", "FAILED", "ABANDONED");

  private final String keyPrefix;

  public Checker() {
    this(DEFAULT_KEY_PREFIX);
  }

  public Checker(String keyPrefix) {
    this.keyPrefix = Objects.requireNonNull(keyPrefix);
  }

  public CheckReport check(History h) {
    CheckReport.Builder report = new CheckReport.Builder();
    grants(h, report);
    reissuedAfterRestore(h, report);
    clientOrder(h, report);
    guards(h, report);
    effectsWithoutGrant(h, report);
    movements(h, report);
    ledger(h, report);
    transitions(h, report);
    liveness(h, report);
    return report.build();
  }

  // overlapping_grants and token_regressions: the backend's own history, per key, in seq order.
  private void grants(History h, CheckReport.Builder report) {
    for (Map.Entry<String, List<Grant>> e : groupBy(h.grants, Grant::key).entrySet()) {
      String key = e.getKey();
      List<Grant> history = new ArrayList<>(e.getValue());
      history.sort(Comparator.comparing(Grant::seq));
      Grant holder = null;
      Grant lastAcquired = null;
      Set<Long> issued = new TreeSet<>();
      long highest = Long.MIN_VALUE;
      for (Grant g : history) {
        if (!g.acquired()) {
          if (holder != null && holder.token().equals(g.token())) {
            holder = null;
          }
          continue;
        }
        boolean reentry =
            lastAcquired != null
                && lastAcquired.token().equals(g.token())
                && Objects.equals(lastAcquired.session(), g.session())
                && holder == lastAcquired;
        if (reentry) {
          continue;
        }
        if (holder != null) {
          report.violation(
              "overlapping_grants",
              key
                  + ": token "
                  + g.token()
                  + " granted (seq "
                  + g.seq()
                  + ") while token "
                  + holder.token()
                  + " was not ended");
        }
        if (issued.contains(g.token())) {
          report.violation(
              "token_regressions",
              key + ": token " + g.token() + " issued twice (seq " + g.seq() + ")");
        } else if (g.token() <= highest) {
          report.violation(
              "token_regressions",
              key + ": token " + g.token() + " issued after " + highest + " (seq " + g.seq() + ")");
        }
        issued.add(g.token());
        highest = Math.max(highest, g.token());
        holder = g;
        lastAcquired = g;
      }
    }
  }

  // token_reissued_after_restore: one token source serves every key (lockdb's sequence, etcd's
  // revision), so after a restore every new token must exceed every token issued before it on any
  // key. Within one epoch the order across keys is not the order of issue (two transactions draw
  // from the sequence and commit in either order), so only epochs are compared.
  private void reissuedAfterRestore(History h, CheckReport.Builder report) {
    Map<Integer, Long> highestPerEpoch = new TreeMap<>();
    for (Grant g : h.grants) {
      if (g.acquired()) {
        highestPerEpoch.merge(g.restoresBefore(), g.token(), Math::max);
      }
    }
    Set<String> counted = new TreeSet<>();
    List<Grant> acquired = new ArrayList<>(h.grants.stream().filter(Grant::acquired).toList());
    acquired.sort(Comparator.comparing(Grant::seq));
    for (Grant g : acquired) {
      int epoch = g.restoresBefore();
      long before =
          highestPerEpoch.entrySet().stream()
              .filter(e -> e.getKey() < epoch)
              .mapToLong(Map.Entry::getValue)
              .max()
              .orElse(Long.MIN_VALUE);
      // An idempotent re-acquire (same key, token and session) is the same grant, counted once.
      if (g.token() <= before && counted.add(g.key() + "|" + g.token() + "|" + g.session())) {
        report.violation(
            "token_reissued_after_restore",
            g.key()
                + ": token "
                + g.token()
                + " issued after restore "
                + epoch
                + " (seq "
                + g.seq()
                + "), not above "
                + before
                + " issued before it");
      }
    }
  }

  // release_before_acquire: the clients' real-time view against the tokens.
  private void clientOrder(History h, CheckReport.Builder report) {
    List<ClientOp> acquires = new ArrayList<>();
    Map<String, List<ClientOp>> acquiresByGrant = new HashMap<>();
    for (ClientOp op : h.clientOps) {
      if (op.ok() && op.op().equals("ACQUIRE")) {
        acquires.add(op);
        acquiresByGrant
            .computeIfAbsent(
                op.worker() + "|" + op.key() + "|" + op.token(), k -> new ArrayList<>())
            .add(op);
      }
    }
    for (ClientOp release : h.clientOps) {
      if (!release.ok() || release.op().equals("ACQUIRE")) {
        continue;
      }
      List<ClientOp> matching =
          acquiresByGrant.getOrDefault(
              release.worker() + "|" + release.key() + "|" + release.token(), List.of());
      String id =
          release.worker()
              + " "
              + release.op().toLowerCase(java.util.Locale.ROOT)
              + " "
              + release.key()
              + " token "
              + release.token();
      if (matching.isEmpty()) {
        report.violation("release_before_acquire", id + ": never acquired by this worker");
      } else if (matching.stream().allMatch(a -> a.invokeNanos() > release.completeNanos())) {
        report.violation(
            "release_before_acquire", id + ": completed before its acquire was invoked");
      }
    }
    for (List<ClientOp> perKey : groupBy(acquires, ClientOp::key).values()) {
      for (ClientOp a : perKey) {
        for (ClientOp b : perKey) {
          boolean sameGrant = a.worker().equals(b.worker()) && a.token().equals(b.token());
          if (a != b
              && !sameGrant
              && a.completeNanos() < b.invokeNanos()
              && a.token() >= b.token()) {
            report.violation(
                "release_before_acquire",
                a.key()
                    + ": "
                    + b.worker()
                    + " acquired token "
                    + b.token()
                    + " after "
                    + a.worker()
                    + "'s acquire of "
                    + a.token()
                    + " had completed");
          }
        }
      }
    }
  }

  // guard_accepted_lower_token: per guard and account, accepted tokens never go down.
  private void guards(History h, CheckReport.Builder report) {
    Map<String, List<GuardDecision>> groups =
        groupBy(h.guardDecisions, d -> d.guard() + "|" + d.account());
    for (Map.Entry<String, List<GuardDecision>> e : groups.entrySet()) {
      List<GuardDecision> decisions = new ArrayList<>(e.getValue());
      // seq first: paydb's audit_event.id is drawn after the fence row is locked, so it is the
      // commit order per account, while its occurred_at is now(), the transaction's start.
      if (decisions.stream().allMatch(d -> d.seq() != null)) {
        decisions.sort(Comparator.comparing(GuardDecision::seq));
      } else if (decisions.stream().allMatch(d -> d.at() != null)) {
        decisions.sort(Comparator.comparing(GuardDecision::at));
      }
      long highest = Long.MIN_VALUE;
      for (GuardDecision d : decisions) {
        if (!d.accepted()) {
          continue;
        }
        if (d.token() < highest) {
          report.violation(
              "guard_accepted_lower_token",
              d.guard()
                  + " "
                  + d.account()
                  + ": accepted token "
                  + d.token()
                  + " after "
                  + highest
                  + (d.payoutId() == null ? "" : " (payout " + d.payoutId() + ")"));
        }
        highest = Math.max(highest, d.token());
      }
    }
  }

  // effect_without_grant: INV-07, against the backend's grants of payout:<account>.
  private void effectsWithoutGrant(History h, CheckReport.Builder report) {
    Map<String, Grant> firstGrant = new HashMap<>();
    for (Grant g : h.grants) {
      if (g.acquired()) {
        firstGrant.merge(g.key() + "|" + g.token(), g, (x, y) -> x.seq() <= y.seq() ? x : y);
      }
    }
    for (GuardDecision d : h.guardDecisions) {
      if (d.accepted()) {
        effect(
            report,
            firstGrant,
            d.account(),
            d.token(),
            d.at(),
            d.guard() + " accepted " + describe(d.payoutId()));
      }
    }
    for (Submission s : h.submissions) {
      effect(
          report,
          firstGrant,
          s.account(),
          s.token(),
          s.at(),
          "submission of payout " + s.payoutId());
    }
    Set<String> workersWithOps = new TreeSet<>();
    Map<String, Long> acquiredAt = new HashMap<>();
    for (ClientOp op : h.clientOps) {
      workersWithOps.add(op.worker());
      if (op.ok() && op.op().equals("ACQUIRE")) {
        acquiredAt.merge(
            op.worker() + "|" + op.key() + "|" + op.token(), op.completeNanos(), Math::min);
      }
    }
    for (Effect x : h.effects) {
      String what = x.worker() + " " + x.what() + " " + describe(x.payoutId());
      effect(report, firstGrant, x.account(), x.token(), x.at(), what);
      // The worker's own view, on the monotonic clock: it acted under a token it had not (yet)
      // been handed. Only for workers that recorded their lock calls.
      if (workersWithOps.contains(x.worker())) {
        Long acquired =
            acquiredAt.get(x.worker() + "|" + keyPrefix + x.account() + "|" + x.token());
        if (acquired == null) {
          report.violation(
              "effect_without_grant",
              what + ": token " + x.token() + " was never acquired by " + x.worker());
        } else if (x.nanos() != null && x.nanos() < acquired) {
          report.violation(
              "effect_without_grant",
              what + ": before " + x.worker() + "'s acquire of token " + x.token() + " completed");
        }
      }
    }
  }

  private void effect(
      CheckReport.Builder report,
      Map<String, Grant> firstGrant,
      String account,
      long token,
      Instant at,
      String what) {
    String key = keyPrefix + account;
    Grant grant = firstGrant.get(key + "|" + token);
    if (grant == null) {
      report.violation(
          "effect_without_grant", what + ": token " + token + " never granted on " + key);
    } else if (grant.at() != null && at != null && grant.at().isAfter(at)) {
      report.violation(
          "effect_without_grant",
          what + ": token " + token + " granted on " + key + " only after the effect");
    }
  }

  private static String describe(String payoutId) {
    return payoutId == null ? "(no payout)" : "payout " + payoutId;
  }

  // duplicate_rail_movement and movement_for_ambiguous_payout: the stub's ground truth.
  private void movements(History h, CheckReport.Builder report) {
    Map<String, List<RailMovement>> byReference =
        groupBy(h.railMovements, RailMovement::clientReference);
    Map<String, String> payoutByReference = new HashMap<>();
    for (Payout p : h.payouts) {
      payoutByReference.put(p.clientReference(), p.id());
    }
    for (Map.Entry<String, List<RailMovement>> e : byReference.entrySet()) {
      if (e.getValue().size() > 1) {
        report.violation(
            "duplicate_rail_movement",
            e.getKey()
                + (payoutByReference.containsKey(e.getKey())
                    ? " (payout " + payoutByReference.get(e.getKey()) + ")"
                    : "")
                + ": "
                + e.getValue().size()
                + " movements");
      }
    }
    for (Payout p : h.payouts) {
      int moved = byReference.getOrDefault(p.clientReference(), List.of()).size();
      boolean saysNotPaid = p.state().equals("FAILED") || p.state().equals("ABANDONED");
      boolean saysPaid = p.state().equals("POSTED") || p.state().equals("RAIL_ACKED");
      if (saysNotPaid && moved > 0) {
        report.violation(
            "movement_for_ambiguous_payout",
            "payout " + p.id() + " is " + p.state() + " but the rail moved it " + moved + "x");
      } else if (saysPaid && moved == 0) {
        report.violation(
            "movement_for_ambiguous_payout",
            "payout " + p.id() + " is " + p.state() + " but the rail has no movement");
      }
    }
  }

  // unbalanced_group, balance_not_ledger_sum, multiple_postings: INV-03 and one posting per payout.
  private void ledger(History h, CheckReport.Builder report) {
    for (Map.Entry<String, List<LedgerEntry>> e :
        groupBy(h.ledgerEntries, LedgerEntry::group).entrySet()) {
      long sum = e.getValue().stream().mapToLong(LedgerEntry::signedAmount).sum();
      if (e.getValue().size() < 2 || sum != 0) {
        report.violation(
            "unbalanced_group",
            "group " + e.getKey() + ": " + e.getValue().size() + " legs, sum " + sum);
      }
    }
    Map<String, Long> sums = new TreeMap<>();
    for (LedgerEntry entry : h.ledgerEntries) {
      sums.merge(entry.account(), entry.signedAmount(), Long::sum);
    }
    Set<String> known = new LinkedHashSet<>();
    for (Account a : h.accounts) {
      known.add(a.id());
      long sum = sums.getOrDefault(a.id(), 0L);
      if (a.balance() != sum) {
        report.violation(
            "balance_not_ledger_sum",
            "account " + a.id() + ": balance " + a.balance() + ", entries sum " + sum);
      }
    }
    if (!h.accounts.isEmpty()) {
      for (String account : sums.keySet()) {
        if (!known.contains(account)) {
          report.violation(
              "balance_not_ledger_sum", "account " + account + ": entries but no account row");
        }
      }
    }
    Map<String, Set<String>> groupsPerPayout = new TreeMap<>();
    for (LedgerEntry entry : h.ledgerEntries) {
      if (entry.payoutId() != null) {
        groupsPerPayout.computeIfAbsent(entry.payoutId(), k -> new TreeSet<>()).add(entry.group());
      }
    }
    groupsPerPayout.forEach(
        (payout, groups) -> {
          if (groups.size() > 1) {
            report.violation(
                "multiple_postings",
                "payout " + payout + ": " + groups.size() + " groups " + groups);
          }
        });
  }

  // transition_out_of_terminal: INV-08.
  private void transitions(History h, CheckReport.Builder report) {
    for (Map.Entry<String, List<Transition>> e :
        groupBy(h.transitions, Transition::payoutId).entrySet()) {
      List<Transition> list = new ArrayList<>(e.getValue());
      list.sort(Comparator.comparing(Transition::seq));
      String reached = null;
      for (Transition t : list) {
        String from = t.from() == null ? null : Records.upper(t.from());
        if ((from != null && TERMINAL.contains(from))
            || (reached != null && TERMINAL.contains(reached))) {
          report.violation(
              "transition_out_of_terminal",
              "payout "
                  + t.payoutId()
                  + ": "
                  + (from != null ? from : reached)
                  + " -> "
                  + t.to()
                  + " (seq "
                  + t.seq()
                  + ")");
        }
        reached = Records.upper(t.to());
      }
    }
  }

  private void liveness(History h, CheckReport.Builder report) {
    Map<String, Long> perState = new TreeMap<>();
    for (Payout p : h.payouts) {
      perState.merge(p.state(), 1L, Long::sum);
    }
    Map<String, Long> rejections = new TreeMap<>();
    for (GuardDecision d : h.guardDecisions) {
      if (!d.accepted()) {
        rejections.merge(d.guard(), 1L, Long::sum);
      }
    }
    Map<String, Long> events = new TreeMap<>();
    for (Event ev : h.events) {
      events.merge(ev.kind(), 1L, Long::sum);
    }
    Set<String> workers = new TreeSet<>();
    h.clientOps.forEach(op -> workers.add(op.worker()));
    h.effects.forEach(x -> workers.add(x.worker()));
    report.liveness.put("payouts", (long) h.payouts.size());
    report.liveness.put("payouts_per_state", perState);
    report.liveness.put("grants_acquired", h.grants.stream().filter(Grant::acquired).count());
    report.liveness.put("guard_rejections", rejections);
    report.liveness.put(
        "fenced_out_effects",
        h.effects.stream()
            .filter(x -> x.outcome() != null && x.outcome().startsWith("FENCED"))
            .count());
    report.liveness.put("rail_movements", (long) h.railMovements.size());
    report.liveness.put("submissions", (long) h.submissions.size());
    report.liveness.put("workers", workers.size());
    report.liveness.put("events", events);
    report.liveness.put("longest_stall_millis", longestStallMillis(h));
    report.liveness.put("torn_lines", List.copyOf(h.tornLines));
  }

  /**
   * The longest stretch of the run, on the host's monotonic clock, in which no worker completed a
   * lock call or attempted an effect: "how long did the system stand still".
   */
  static Long longestStallMillis(History h) {
    List<Long> instants = new ArrayList<>();
    h.clientOps.forEach(op -> instants.add(op.completeNanos()));
    h.effects.stream().filter(x -> x.nanos() != null).forEach(x -> instants.add(x.nanos()));
    if (instants.size() < 2) {
      return null;
    }
    instants.sort(null);
    long longest = 0;
    for (int i = 1; i < instants.size(); i++) {
      longest = Math.max(longest, instants.get(i) - instants.get(i - 1));
    }
    return longest / 1_000_000;
  }

  private static <T> Map<String, List<T>> groupBy(List<T> items, Function<T, String> key) {
    Map<String, List<T>> groups = new LinkedHashMap<>();
    for (T item : items) {
      groups.computeIfAbsent(key.apply(item), k -> new ArrayList<>()).add(item);
    }
    return groups;
  }
}
