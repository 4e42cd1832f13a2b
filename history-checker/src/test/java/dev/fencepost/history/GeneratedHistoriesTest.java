package dev.fencepost.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.history.Records.Account;
import dev.fencepost.history.Records.ClientOp;
import dev.fencepost.history.Records.Effect;
import dev.fencepost.history.Records.Grant;
import dev.fencepost.history.Records.GuardDecision;
import dev.fencepost.history.Records.LedgerEntry;
import dev.fencepost.history.Records.Payout;
import dev.fencepost.history.Records.RailMovement;
import dev.fencepost.history.Records.Transition;
import dev.fencepost.testsupport.generate.Generated;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Generated correct histories (several accounts, one payout after another per account, each under a
 * fresh grant, some grants ending by expiry) are all zeros; one generated break of each kind is
 * caught.
 */
class GeneratedHistoriesTest {

  private final Checker checker = new Checker();

  /** A correct run: per account, payouts one after another, each under a new, higher token. */
  static History correctRun(Random random) {
    History h = new History();
    Instant base = Instant.parse("2026-11-29T10:00:00Z");
    long token = 1 + random.nextInt(5);
    long seq = 0;
    long transitionSeq = 0;
    int accounts = 1 + random.nextInt(3);
    for (int a = 0; a < accounts; a++) {
      String account = "acc-" + a;
      String key = "payout:" + account;
      long t = 1_000L * a;
      long balance = 1_000_000;
      h.add(new LedgerEntry("paydb", "fund-" + a, account, balance, null, null));
      h.add(new LedgerEntry("paydb", "fund-" + a, "funding-source", -balance, null, null));
      int payouts = 1 + random.nextInt(6);
      for (int p = 0; p < payouts; p++) {
        String worker = "w" + random.nextInt(3);
        String id = account + "-p" + p;
        token += 1 + random.nextInt(3);
        long amount = 1 + random.nextInt(10_000);
        long acquired = t + 1 + random.nextInt(5);
        String session = "s-" + token;
        h.add(
            new Grant("lockdb", key, token, "ACQUIRED", session, ++seq, base.plusMillis(acquired)));
        h.add(new ClientOp(worker, worker, "ACQUIRE", key, token, nanos(t), nanos(acquired), "OK"));
        long claimed = acquired + 1 + random.nextInt(5);
        h.add(
            new Effect(
                worker,
                worker,
                id,
                account,
                "CLAIM",
                token,
                "OK",
                nanos(claimed),
                base.plusMillis(claimed)));
        h.add(
            new GuardDecision(
                "paydb",
                "PAYDB",
                account,
                id,
                token,
                null,
                "ACCEPTED",
                null,
                worker,
                null,
                null,
                base.plusMillis(claimed)));
        h.add(
            paydbTransition(
                id,
                account,
                "PENDING",
                "CLAIMED",
                token,
                worker,
                ++transitionSeq,
                base.plusMillis(claimed)));
        h.add(
            paydbTransition(
                id,
                account,
                "CLAIMED",
                "POSTED",
                token,
                worker,
                ++transitionSeq,
                base.plusMillis(claimed + 1)));
        h.add(new RailMovement("rail-stub", "fp-" + id, "rr-" + id, amount, null));
        h.add(new Payout("paydb", id, account, "POSTED", "fp-" + id, token, "rr-" + id));
        h.add(new LedgerEntry("paydb", "g-" + id, account, -amount, id, token));
        h.add(new LedgerEntry("paydb", "g-" + id, "payout-clearing", amount, id, token));
        balance -= amount;
        long ended = claimed + 2 + random.nextInt(5);
        if (random.nextBoolean()) {
          h.add(
              new Grant("lockdb", key, token, "RELEASED", session, ++seq, base.plusMillis(ended)));
          h.add(
              new ClientOp(
                  worker, worker, "RELEASE", key, token, nanos(ended - 1), nanos(ended), "OK"));
        } else {
          h.add(new Grant("lockdb", key, token, "EXPIRED", session, ++seq, base.plusMillis(ended)));
        }
        t = ended + 1;
      }
      h.add(new Account("paydb", account, balance, token));
    }
    long clearing =
        h.ledgerEntries.stream()
            .filter(e -> e.account().equals("payout-clearing"))
            .mapToLong(LedgerEntry::signedAmount)
            .sum();
    h.add(new Account("paydb", "payout-clearing", clearing, 0L));
    h.add(new Account("paydb", "funding-source", -1_000_000L * accounts, 0L));
    return h;
  }

  /** A transition as paydb's audit trail records it. */
  private static Transition paydbTransition(
      String id,
      String account,
      String from,
      String to,
      long token,
      String worker,
      long seq,
      Instant at) {
    return new Transition("paydb", id, account, from, to, token, worker, seq, at);
  }

  /** 200 generated correct runs, each broken by {@code breakIt}, then each checked. */
  private static void forAllBroken(BiConsumer<Random, History> breakIt, Consumer<History> check) {
    Generated.forAll(
        200,
        random -> {
          History h = correctRun(random);
          breakIt.accept(random, h);
          return h;
        },
        check);
  }

  private static long nanos(long millis) {
    return 5_000_000_000L + millis * 1_000_000L;
  }

  @Test
  void everyGeneratedCorrectRunHasEveryCounterAtZero() {
    Generated.forAll(
        200,
        GeneratedHistoriesTest::correctRun,
        h ->
            assertThat(checker.check(h).safety())
                .allSatisfy((check, c) -> assertThat(c.count()).as(check).isZero()));
  }

  @Test
  void swappingTheTokensOfTwoGrantsOnAKeyIsATokenRegression() {
    forAllBroken(
        (random, h) -> {
          List<Integer> acquired = new ArrayList<>();
          for (int i = 0; i < h.grants.size(); i++) {
            if (h.grants.get(i).kind().equals("ACQUIRED")
                && h.grants.get(i).key().equals(h.grants.get(0).key())) {
              acquired.add(i);
            }
          }
          if (acquired.size() >= 2) {
            int i = acquired.get(random.nextInt(acquired.size() - 1));
            int j =
                acquired.get(
                    acquired.indexOf(i)
                        + 1
                        + random.nextInt(acquired.size() - acquired.indexOf(i) - 1));
            Grant gi = h.grants.get(i);
            Grant gj = h.grants.get(j);
            h.grants.set(
                i,
                new Grant(
                    gi.source(), gi.key(), gj.token(), gi.kind(), gi.session(), gi.seq(), gi.at()));
            h.grants.set(
                j,
                new Grant(
                    gj.source(), gj.key(), gi.token(), gj.kind(), gj.session(), gj.seq(), gj.at()));
          } else {
            Grant g = h.grants.get(0);
            h.add(
                new Grant(g.source(), g.key(), g.token(), "ACQUIRED", "again", 1_000_000L, g.at()));
          }
        },
        h -> assertThat(checker.check(h).count("token_regressions")).isPositive());
  }

  @Test
  void droppingTheEndOfAGrantThatIsFollowedByAnotherIsAnOverlap() {
    forAllBroken(
        (random, h) -> {
          String key = h.grants.get(0).key();
          List<Grant> onKey = h.grants.stream().filter(g -> g.key().equals(key)).toList();
          // every end except the key's last one is followed by a new ACQUIRED
          List<Grant> ends =
              onKey.subList(0, onKey.size() - 1).stream().filter(g -> !g.acquired()).toList();
          if (ends.isEmpty()) {
            Grant g = onKey.get(0);
            h.add(new Grant(g.source(), key, g.token() + 1_000, "ACQUIRED", "x", g.seq(), g.at()));
          } else {
            h.grants.remove(ends.get(random.nextInt(ends.size())));
          }
        },
        h -> assertThat(checker.check(h).count("overlapping_grants")).isPositive());
  }

  @Test
  void aSecondMovementForAnyPayoutIsExactlyOneDuplicate() {
    forAllBroken(
        (random, h) -> {
          RailMovement m = Generated.pick(random, h.railMovements);
          h.add(
              new RailMovement(
                  "rail-stub", m.clientReference(), m.railReference() + "-2", null, null));
        },
        h -> {
          CheckReport report = checker.check(h);
          assertThat(report.count("duplicate_rail_movement")).isEqualTo(1);
          assertThat(report.count("multiple_postings")).isZero();
        });
  }
}
