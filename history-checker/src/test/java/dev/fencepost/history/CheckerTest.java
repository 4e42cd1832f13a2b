package dev.fencepost.history;

import static dev.fencepost.history.Histories.at;
import static dev.fencepost.history.Histories.effect;
import static dev.fencepost.history.Histories.grant;
import static dev.fencepost.history.Histories.guard;
import static dev.fencepost.history.Histories.leg;
import static dev.fencepost.history.Histories.op;
import static dev.fencepost.history.Histories.transition;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.history.Records.Account;
import dev.fencepost.history.Records.Grant;
import dev.fencepost.history.Records.Payout;
import dev.fencepost.history.Records.RailMovement;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CheckerTest {

  private final Checker checker = new Checker();

  @Test
  void aCleanTakeoverHistoryHasEveryCounterAtZero() {
    CheckReport report = checker.check(Histories.clean());

    assertThat(report.safety().keySet()).containsExactlyElementsOf(CheckReport.CHECKS);
    assertThat(report.safety())
        .allSatisfy((check, counter) -> assertThat(counter.count()).as(check).isZero());
    assertThat(report.safe()).isTrue();
    assertThat(report.liveness())
        .containsEntry("payouts", 1L)
        .containsEntry("grants_acquired", 2L)
        .containsEntry("fenced_out_effects", 1L)
        .containsEntry("workers", 2);
    assertThat(report.liveness().get("guard_rejections").toString()).isEqualTo("{RAIL_PROXY=1}");
    assertThat(report.liveness().get("longest_stall_millis")).isEqualTo(4_201L);
  }

  @Test
  void anEmptyHistoryIsSafe() {
    assertThat(checker.check(new History()).safe()).isTrue();
  }

  /** Negative controls: each deliberately broken history, and the one check that must catch it. */
  static Stream<Arguments> brokenHistories() {
    return Stream.of(
        broken(
            "overlapping_grants",
            "token 7 granted while token 5 was never ended",
            h -> h.grants.removeIf(g -> g.kind().equals("EXPIRED"))),
        broken("token_regressions", "a restored backend grants token 6 after 7", laterGrantOf(6)),
        broken("token_regressions", "token 7 issued twice", laterGrantOf(7)),
        broken(
            "token_reissued_after_restore",
            "a restored backend hands token 6, already issued before the restore, to another key",
            h -> h.add(afterRestore("payout:acc-2", 6, 9_000))),
        broken(
            "release_before_acquire",
            "a release of a token the worker never acquired",
            h -> h.add(op("w3", "RELEASE", 9L, 9_000, 9_001, "OK"))),
        broken(
            "release_before_acquire",
            "a release completing before its acquire was invoked",
            h -> {
              h.add(op("w3", "RELEASE", 11L, 9_000, 9_001, "OK"));
              h.add(op("w3", "ACQUIRE", 11L, 9_500, 9_501, "OK"));
            }),
        broken(
            "release_before_acquire",
            "a later acquire in real time gets a lower token",
            h -> h.add(op("w3", "ACQUIRE", 6L, 5_000, 5_001, "OK"))),
        broken(
            "guard_accepted_lower_token",
            "paydb accepts token 5 after it accepted 7",
            h -> h.add(guard("PAYDB", 5, 7L, "ACCEPTED", "w1", 9_500))),
        broken(
            "effect_without_grant",
            "a submit under a token that was never granted",
            h -> h.add(effect("w3", "SUBMIT", 6, "OK", 5_000))),
        broken(
            "effect_without_grant",
            "w1 submits under w2's token 7, which it never acquired",
            h -> h.add(effect("w1", "SUBMIT", 7, "OK", 9_550))),
        broken(
            "effect_without_grant",
            "w2 claims before its acquire of token 7 completed",
            h -> h.add(effect("w2", "CLAIM", 7, "OK", 3_950))),
        broken(
            "release_before_acquire",
            "a renewal of a token the worker never acquired",
            h -> h.add(op("w1", "RENEW", 7L, 5_000, 5_001, "OK"))),
        broken(
            "effect_without_grant",
            "a guard accepted token 7 before the backend granted it",
            h -> h.add(guard("RAIL_PROXY", 7, null, "ACCEPTED", "w2", 3_000))),
        broken(
            "duplicate_rail_movement",
            "the rail moved p1 twice",
            h -> h.add(new RailMovement("rail-stub", "fp-p1", "rr-2", 2_500L, at(9_600)))),
        broken(
            "movement_for_ambiguous_payout",
            "an ambiguous payout resolved FAILED although the rail moved it",
            h -> {
              h.payouts.clear();
              h.add(new Payout("paydb", "p1", "acc-1", "FAILED", "fp-p1", 7L, null));
            }),
        broken(
            "movement_for_ambiguous_payout",
            "a payout POSTED with no movement on the rail",
            h -> h.railMovements.clear()),
        broken(
            "unbalanced_group",
            "a posting group with a third leg",
            h -> h.add(leg("g-p1", "payout-clearing", 1, "p1", 7L))),
        broken(
            "balance_not_ledger_sum",
            "a balance that is not the sum of its entries",
            h -> {
              h.accounts.removeIf(a -> a.id().equals("acc-1"));
              h.add(new Account("paydb", "acc-1", 7_000L, 7L));
            }),
        broken(
            "multiple_postings",
            "p1 posted twice",
            h -> {
              h.add(leg("g-p1-again", "acc-1", -2_500, "p1", 7L));
              h.add(leg("g-p1-again", "payout-clearing", 2_500, "p1", 7L));
            }),
        broken(
            "transition_out_of_terminal",
            "a cleanup job moves POSTED back to CLAIMED",
            h -> h.add(transition(6, "POSTED", "CLAIMED", 7, 9_000))),
        broken(
            "transition_out_of_terminal",
            "a transition recorded after the terminal one, whatever its from-state says",
            h -> h.add(transition(6, "RAIL_ACKED", "POSTED", 7, 9_000))));
  }

  private static Arguments broken(String check, String what, Consumer<History> breakIt) {
    return Arguments.of(check, what, breakIt);
  }

  /** paydb's row for an accepted write; {@code seq} is the row id, so the commit order. */
  private static Records.GuardDecision paydbAccepted(
      long seq, long token, String worker, long millis) {
    return new Records.GuardDecision(
        "paydb",
        "PAYDB",
        "acc-1",
        "p1",
        token,
        null,
        "ACCEPTED",
        null,
        worker,
        seq,
        null,
        at(millis));
  }

  /** A third session acquires and releases {@code token} after the clean history's grants. */
  private static Consumer<History> laterGrantOf(long token) {
    return h -> {
      h.add(grant(5, "ACQUIRED", token, "s3", 9_000));
      h.add(grant(6, "RELEASED", token, "s3", 9_100));
    };
  }

  @ParameterizedTest(name = "{0} catches: {1}")
  @MethodSource("brokenHistories")
  void eachCheckCatchesItsDeliberatelyBrokenHistory(
      String check, String what, Consumer<History> breakIt) {
    History history = Histories.clean();
    breakIt.accept(history);

    CheckReport report = checker.check(history);

    assertThat(report.count(check)).as(what).isPositive();
    assertThat(report.safety().get(check).sample()).isNotEmpty();
    assertThat(report.safe()).isFalse();
  }

  @Test
  void everyCheckHasANegativeControl() {
    Set<String> covered =
        brokenHistories().map(a -> (String) a.get()[0]).collect(Collectors.toSet());
    assertThat(covered).containsExactlyInAnyOrderElementsOf(CheckReport.CHECKS);
  }

  /** An ACQUIRED grant the backend issued after its first restore (epoch 1), seq after clean's. */
  private static Grant afterRestore(String key, long token, long millis) {
    return new Grant("lockdb", key, token, "ACQUIRED", "s-restored", 100L, at(millis), 1);
  }

  @Test
  void afterARestoreATokenAboveEveryEarlierOneOnAnyKeyIsNotAReissue() {
    History h = Histories.clean();
    h.add(afterRestore("payout:acc-2", 1_000_008, 9_000));

    assertThat(checker.check(h).count("token_reissued_after_restore")).isZero();
  }

  @Test
  void withinOneEpochALowerTokenOnAnotherKeyIsNotAReissue() {
    // Two acquires on different keys draw from the one sequence and commit in either order.
    History h = Histories.clean();
    h.add(new Grant("lockdb", "payout:acc-2", 6L, "ACQUIRED", "s9", 5L, at(9_000)));

    assertThat(checker.check(h).count("token_reissued_after_restore")).isZero();
  }

  @Test
  void aReissuedGrantReacquiredByItsSessionIsCountedOnce() {
    History h = Histories.clean();
    h.add(afterRestore("payout:acc-2", 6, 9_000));
    h.add(afterRestore("payout:acc-2", 6, 9_100));

    CheckReport report = checker.check(h);

    assertThat(report.count("token_reissued_after_restore")).isEqualTo(1);
    assertThat(report.safety().get("token_reissued_after_restore").sample())
        .singleElement()
        .asString()
        .contains("payout:acc-2: token 6 issued after restore 1")
        .contains("not above 7");
  }

  @Test
  void aSessionReacquiringItsOwnLockIsNeitherAnOverlapNorATokenIssuedTwice() {
    History h = Histories.clean();
    h.grants.add(2, new Grant("lockdb", Histories.KEY, 5L, "ACQUIRED", "s1", 1L, at(2)));

    CheckReport report = checker.check(h);

    assertThat(report.count("overlapping_grants")).isZero();
    assertThat(report.count("token_regressions")).isZero();
  }

  @Test
  void paydbDecisionsAreOrderedByTheirSeqNotByTheTransactionStartTime() {
    History h = Histories.clean();
    h.guardDecisions.removeIf(d -> d.guard().equals("PAYDB"));
    // The token-7 transaction began first (earlier now()) but committed second (higher id).
    h.add(paydbAccepted(1, 5, "w1", 4_100));
    h.add(paydbAccepted(2, 7, "w2", 4_050));

    assertThat(checker.check(h).safety())
        .allSatisfy((check, counter) -> assertThat(counter.count()).as(check).isZero());
  }

  @Test
  void samplesAreBoundedButTheCountIsNot() {
    History h = Histories.clean();
    for (int i = 0; i < 25; i++) {
      h.add(transition(10 + i, "POSTED", "CLAIMED", 7, 9_000 + i));
    }

    CheckReport report = checker.check(h);

    assertThat(report.count("transition_out_of_terminal")).isEqualTo(25);
    assertThat(report.safety().get("transition_out_of_terminal").sample())
        .hasSize(CheckReport.SAMPLE_LIMIT);
  }

  @Test
  void theKeyPrefixDecidesWhichGrantAnEffectNeeds() {
    CheckReport report = new Checker("account:").check(Histories.clean());

    assertThat(report.count("effect_without_grant")).isPositive();
  }
}
