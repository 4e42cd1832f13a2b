package dev.fencepost.experiments.chaos;

import dev.fencepost.history.CheckReport;
import dev.fencepost.history.Checker;
import dev.fencepost.history.History;
import dev.fencepost.history.HistoryFiles;
import dev.fencepost.history.Records;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * The chaos run's negative control (ADR 0171): a clean check proves something only if the same
 * check reports the breach when there is one. After a run has checked clean, each {@link Mutation}
 * breaks one thing the run asserts (no duplicate movement, nothing acknowledged lost, the ledger
 * balanced, every effect under a grant of the backend, one holder at a time) in a fresh read of
 * that run's own recorded history, and the checker must count it. On etcd the grant mutations act
 * on the grants read from etcd's watch, so they show that those records are what the effects are
 * checked against, on either backend the same way. A mutated history is never written back.
 */
final class ChecksBite {

  private ChecksBite() {}

  /** One mutation's outcome: how many violations its counter reported on the mutated history. */
  record Bite(Mutation mutation, long caught, String sample) {
    @Override
    public String toString() {
      return mutation
          + ": "
          + mutation.counter
          + " = "
          + caught
          + (sample.isEmpty() ? "" : ", " + sample);
    }
  }

  enum Mutation {
    DUPLICATE_MOVEMENT(
        "the rail movement of a POSTED payout recorded twice",
        "duplicate_rail_movement",
        (h, p) -> movementOf(h, p).ifPresent(h.railMovements::add)),
    ACKNOWLEDGED_PAYOUT_LOST(
        "the rail movement of a POSTED payout removed",
        "movement_for_ambiguous_payout",
        (h, p) -> h.railMovements.removeIf(m -> m.clientReference().equals(p.clientReference()))),
    LEDGER_LEG_DROPPED(
        "one leg of a POSTED payout's ledger group removed",
        "unbalanced_group",
        (h, p) ->
            h.ledgerEntries.stream()
                .filter(e -> p.id().equals(e.payoutId()))
                .findFirst()
                .ifPresent(h.ledgerEntries::remove)),
    GRANT_MISSING(
        "the backend's grant of a POSTED payout's token removed",
        "effect_without_grant",
        (h, p) ->
            h.grants.removeIf(g -> g.key().equals(key(p)) && g.token().equals(p.tokenStamp()))),
    SECOND_HOLDER(
        "a second grant of a POSTED payout's key while its grant is held",
        "overlapping_grants",
        (h, p) ->
            acquired(h, p)
                .ifPresent(
                    g ->
                        // The same seq, added after it: the checker's stable sort keeps it after
                        // the holder's grant and before its release.
                        h.grants.add(
                            new Records.Grant(
                                g.source(),
                                g.key(),
                                g.token() + 1,
                                "ACQUIRED",
                                "negative-control",
                                g.seq(),
                                g.at()))));

    final String what;
    final String counter;
    private final BiConsumer<History, Records.Payout> apply;

    Mutation(String what, String counter, BiConsumer<History, Records.Payout> apply) {
      this.what = what;
      this.counter = counter;
      this.apply = apply;
    }
  }

  /** Every mutation applied to its own fresh read of the history in {@code runDir}. */
  static List<Bite> on(Path runDir) {
    List<Bite> bites = new ArrayList<>();
    for (Mutation m : Mutation.values()) {
      History h = HistoryFiles.read(runDir);
      Optional<Records.Payout> target = target(h);
      if (target.isEmpty()) {
        bites.add(new Bite(m, 0, "no POSTED payout with a grant to mutate"));
        continue;
      }
      m.apply.accept(h, target.get());
      CheckReport report = new Checker().check(h);
      bites.add(new Bite(m, report.count(m.counter), ""));
    }
    return bites;
  }

  /** The bites as a table for the evidence page. */
  static String markdown(List<Bite> bites) {
    StringBuilder md = new StringBuilder("| mutation of the run's history | counter | count |\n");
    md.append("|---|---|---:|\n");
    for (Bite b : bites) {
      md.append("| ")
          .append(b.mutation().what)
          .append(" | `")
          .append(b.mutation().counter)
          .append("` | ")
          .append(b.caught())
          .append(" |\n");
    }
    return md.toString();
  }

  /** The first POSTED payout whose token the backend's history granted on its key. */
  private static Optional<Records.Payout> target(History h) {
    return h.payouts.stream()
        .filter(p -> p.state().equals("POSTED") && p.tokenStamp() != null)
        .filter(p -> acquired(h, p).isPresent() && movementOf(h, p).isPresent())
        .findFirst();
  }

  private static String key(Records.Payout p) {
    return Checker.DEFAULT_KEY_PREFIX + p.account();
  }

  private static Optional<Records.Grant> acquired(History h, Records.Payout p) {
    return h.grants.stream()
        .filter(
            g ->
                g.kind().equals("ACQUIRED")
                    && g.key().equals(key(p))
                    && g.token().equals(p.tokenStamp()))
        .findFirst();
  }

  private static Optional<Records.RailMovement> movementOf(History h, Records.Payout p) {
    return h.railMovements.stream()
        .filter(m -> m.clientReference().equals(p.clientReference()))
        .findFirst();
  }
}
