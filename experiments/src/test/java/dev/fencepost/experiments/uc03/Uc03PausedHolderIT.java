package dev.fencepost.experiments.uc03;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.Guards;
import dev.fencepost.experiments.harness.RunResult;
import dev.fencepost.experiments.harness.Takeover;
import dev.fencepost.experiments.harness.Worker;
import dev.fencepost.history.Records;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payoutjob.PayoutFailpoint.Point;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * UC-03 with real processes: a worker is SIGSTOPped past its lease, a second worker takes over and
 * finishes, the first is SIGCONTed and goes on with its stale token. With every guard on nothing
 * gets through; the negative-control matrix (ADRs 0035 and 0043) switches guards off one at a time
 * and shows what each one was catching. docs/evidence/uc03.md is written from these runs.
 */
@Tag("UC-03")
@Tag("INV-01")
@Tag("INV-05")
@Tag("FR-29")
@Tag("NFR-07")
class Uc03PausedHolderIT {

  static final long FUNDING = 10_000;
  static final long AMOUNT = 2_500;

  /** Results by scenario, for the evidence report (written after all tests of the class). */
  static final Map<String, Outcome> RESULTS = new ConcurrentHashMap<>();

  /** One run and what the stale worker (w1) ended with. */
  record Outcome(RunResult run, PayoutState finalState, int movements, long submissions) {}

  static long fencedOutEvents(RunResult run, String worker) {
    try {
      return Files.readAllLines(run.dir().resolve("logs").resolve(worker + ".log")).stream()
          .filter(line -> line.contains("lock.fenced_out"))
          .count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Records.Effect last(List<Records.Effect> effects) {
    assertThat(effects).isNotEmpty();
    return effects.get(effects.size() - 1);
  }

  /** w1 frozen at {@code point} with every guard on; w2 finishes; w1 thaws. */
  static Outcome frozenAt(
      String scenario, String title, Point point, boolean pauseLandsAfterCheck) {
    try (ExperimentRun run = ExperimentRun.start(scenario, title, Guards.ALL_ON)) {
      Payout payout = run.payout("uc03", FUNDING, AMOUNT);
      Takeover.pausedPastLease(run, payout, point, pauseLandsAfterCheck);
      RunResult result = run.finish();
      Outcome outcome =
          new Outcome(
              result,
              run.reload(payout).state(),
              run.movements(payout),
              run.submissions(payout.id()));
      RESULTS.put(scenario, outcome);
      return outcome;
    }
  }

  static void assertSafeAndPostedOnce(Outcome o) {
    assertThat(o.run().report().safe())
        .as(o.run().report().toMarkdown(o.run().scenario()))
        .isTrue();
    assertThat(o.finalState()).isEqualTo(PayoutState.POSTED);
    assertThat(o.movements()).isEqualTo(1);
    assertThat(o.submissions()).isEqualTo(1);
    assertThat(o.run().history().accounts)
        .filteredOn(a -> a.id().startsWith("uc03"))
        .singleElement()
        .satisfies(a -> assertThat(a.balance()).isEqualTo(FUNDING - AMOUNT));
  }

  @Nested
  class EveryGuardOn {

    @Test
    void frozenAfterTheClaimItsSubmissionIsRefusedByTheProxyHighWater() {
      Outcome o = frozenAt("uc03-claimed", "UC-03: frozen after the claim", Point.CLAIMED, true);
      assertSafeAndPostedOnce(o);
      Records.Effect stale = last(o.run().effectsOf("w1"));
      assertThat(stale.what()).isEqualTo("SUBMIT");
      assertThat(stale.outcome()).isEqualTo("FENCED_OUT");
      assertThat(o.run().fencedEffects()).hasSize(1);
      assertThat(fencedOutEvents(o.run(), "w1")).isEqualTo(1);
    }

    @Test
    void frozenAfterTheProxyAnsweredItsPaydbWriteIsRefusedByTheFence() {
      Outcome o =
          frozenAt(
              "uc03-proxy-answered",
              "UC-03: frozen after the proxy answered",
              Point.PROXY_ANSWERED,
              true);
      assertSafeAndPostedOnce(o);
      Records.Effect stale = last(o.run().effectsOf("w1"));
      assertThat(stale.what()).isEqualTo("MARK_SUBMITTED");
      assertThat(stale.outcome()).isEqualTo("FENCED_OUT");
      assertThat(o.run().fencedEffects()).hasSize(1);
      assertThat(fencedOutEvents(o.run(), "w1")).isEqualTo(1);
    }

    @Test
    void frozenAfterRailAckedItsPostingIsRefusedByTheFence() {
      Outcome o =
          frozenAt(
              "uc03-rail-acked",
              "UC-03: frozen after RAIL_ACKED, before posting",
              Point.RAIL_ACKED,
              true);
      assertSafeAndPostedOnce(o);
      Records.Effect stale = last(o.run().effectsOf("w1"));
      assertThat(stale.what()).isEqualTo("POST");
      assertThat(stale.outcome()).isEqualTo("FENCED_OUT");
      assertThat(o.run().fencedEffects()).hasSize(1);
      assertThat(fencedOutEvents(o.run(), "w1")).isEqualTo(1);
    }

    @Test
    void withTheLocalDeadlineCheckInForceTheThawedWorkerStopsBeforeAnyGuard() {
      Outcome o =
          frozenAt(
              "uc03-claimed-local-check",
              "UC-03: frozen after the claim, local deadline check in force",
              Point.CLAIMED,
              false);
      assertSafeAndPostedOnce(o);
      assertThat(o.run().effectsOf("w1")).extracting(Records.Effect::what).containsExactly("CLAIM");
      assertThat(o.run().fencedEffects()).isEmpty();
      assertThat(fencedOutEvents(o.run(), "w1")).isZero();
    }
  }

  /**
   * The interleaving in which paydb's fence is the only guard that can act: w1 is frozen after its
   * claim; w2 takes over, re-claims (the paydb fence moves to w2's token) and parks before
   * submitting; w1 thaws and submits first, so the proxy has not seen w2's token and accepts w1's;
   * w1's next paydb writes carry the stale token. Then w2 goes on.
   */
  static Outcome reclaimRace(String scenario, String title, Guards guards) {
    try (ExperimentRun run = ExperimentRun.start(scenario, title, guards)) {
      Payout payout = run.payout("uc03", FUNDING, AMOUNT);
      Worker w1 = run.worker("w1").pauseAt(Point.CLAIMED).pauseLandsAfterCheck().start();
      Worker w2 = run.worker("w2").pauseAt(Point.RECLAIMED).loop().gated().start();
      w1.awaitParked(Duration.ofMinutes(3));
      run.stop(w1, "parked at CLAIMED; frozen past its lease");
      w2.awaitReady(Duration.ofMinutes(3));
      run.openGate(w2, "successor may run");
      w2.awaitParked(Duration.ofMinutes(3));
      run.resume(w1, true, "thawed while w2 is parked after its re-claim");
      w1.awaitExit(Duration.ofMinutes(2));
      run.resume(w2, false, "w2 goes on to submit");
      run.awaitEffect("w2", e -> e.what().equals("SUBMIT"));
      run.awaitState(payout, PayoutState.POSTED);
      RunResult result = run.finish();
      Outcome outcome =
          new Outcome(
              result,
              run.reload(payout).state(),
              run.movements(payout),
              run.submissions(payout.id()));
      RESULTS.put(scenario, outcome);
      return outcome;
    }
  }

  /** The claim interleaving (as {@link EveryGuardOn}) with some guards off. */
  static Outcome claimRace(String scenario, String title, Guards guards) {
    try (ExperimentRun run = ExperimentRun.start(scenario, title, guards)) {
      Payout payout = run.payout("uc03", FUNDING, AMOUNT);
      Takeover.pausedPastLease(run, payout, Point.CLAIMED, true);
      RunResult result = run.finish();
      Outcome outcome =
          new Outcome(
              result,
              run.reload(payout).state(),
              run.movements(payout),
              run.submissions(payout.id()));
      RESULTS.put(scenario, outcome);
      return outcome;
    }
  }

  @Nested
  class NegativeControls {

    @Test
    void b0ReclaimRaceWithEveryGuardOnThePaydbFenceRefusesTheStaleWrite() {
      Outcome o = reclaimRace("uc03-b-fence-on", "Reclaim race, every guard on", Guards.ALL_ON);
      assertSafeAndPostedOnce(o);
      Records.Effect stale = last(o.run().effectsOf("w1"));
      assertThat(stale.what()).isEqualTo("MARK_SUBMITTED");
      assertThat(stale.outcome()).isEqualTo("FENCED_OUT");
      // w1's submission under its stale token was accepted by the proxy and moved the money once;
      // w2 found it as a duplicate and completed the payout from the proxy's record.
      assertThat(o.run().effectsOf("w1"))
          .anySatisfy(e -> assertThat(e.what() + "/" + e.outcome()).isEqualTo("SUBMIT/OK"));
      assertThat(o.run().effectsOf("w2"))
          .anySatisfy(e -> assertThat(e.what() + "/" + e.outcome()).isEqualTo("SUBMIT/DUPLICATE"));
    }

    @Test
    void bResourceFenceOffTheStaleHolderPostsThePayout() {
      Outcome o =
          reclaimRace(
              "uc03-b-fence-off",
              "Reclaim race, resource fence off",
              Guards.ALL_ON.withResourceFence(false));
      assertThat(o.run().count("guard_accepted_lower_token")).isPositive();
      assertThat(o.finalState()).isEqualTo(PayoutState.POSTED);
      assertThat(o.run().history().transitions)
          .filteredOn(t -> "POSTED".equals(t.to()))
          .singleElement()
          .satisfies(t -> assertThat(t.actor()).contains("w1"));
      assertThat(o.movements()).isEqualTo(1);
      assertThat(o.run().count("duplicate_rail_movement")).isZero();
      assertThat(o.run().count("multiple_postings")).isZero();
      // w2 found w1's submission at the proxy and its own paydb write was refused as a transition.
      assertThat(o.run().effectsOf("w2"))
          .extracting(e -> e.what() + "/" + e.outcome())
          .contains("SUBMIT/DUPLICATE", "MARK_SUBMITTED/REFUSED_TRANSITION");
    }

    @Test
    void cHighWaterOffUniquenessRefusesTheSecondSubmission() {
      Outcome o =
          claimRace("uc03-c-high-water-off", "High-water off", Guards.ALL_ON.withHighWater(false));
      assertSafeAndPostedOnce(o);
      assertThat(o.run().effectsOf("w1"))
          .anySatisfy(e -> assertThat(e.what() + "/" + e.outcome()).isEqualTo("SUBMIT/DUPLICATE"));
      Records.Effect stale = last(o.run().effectsOf("w1"));
      assertThat(stale.what() + "/" + stale.outcome()).isEqualTo("MARK_SUBMITTED/FENCED_OUT");
    }

    @Test
    void dUniquenessOffHighWaterRefusesTheStaleSubmission() {
      Outcome o =
          claimRace("uc03-d-uniqueness-off", "Uniqueness off", Guards.ALL_ON.withUniqueness(false));
      assertSafeAndPostedOnce(o);
      Records.Effect stale = last(o.run().effectsOf("w1"));
      assertThat(stale.what() + "/" + stale.outcome()).isEqualTo("SUBMIT/FENCED_OUT");
    }

    @Test
    void eBothProxyGuardsOffTheMoneyIsSentTwice() {
      Outcome o =
          claimRace(
              "uc03-e-proxy-guards-off",
              "High-water and uniqueness off, resource fence on",
              Guards.ALL_ON.withHighWater(false).withUniqueness(false));
      assertThat(o.run().count("duplicate_rail_movement")).isEqualTo(1);
      assertThat(o.movements()).isEqualTo(2);
      assertThat(o.finalState()).isEqualTo(PayoutState.POSTED);
      assertThat(o.run().count("multiple_postings")).isZero();
      Records.Effect stale = last(o.run().effectsOf("w1"));
      assertThat(stale.what() + "/" + stale.outcome()).isEqualTo("MARK_SUBMITTED/FENCED_OUT");
    }

    @Test
    void fEverythingOffTheMoneyIsSentTwiceAndOnlyTheStateMachineRefusesTheStaleWrite() {
      Outcome o =
          claimRace("uc03-f-everything-off", "Every guard off", new Guards(false, false, false));
      assertThat(o.run().count("duplicate_rail_movement")).isEqualTo(1);
      assertThat(o.movements()).isEqualTo(2);
      assertThat(o.run().count("multiple_postings")).isZero();
      Records.Effect stale = last(o.run().effectsOf("w1"));
      assertThat(stale.what() + "/" + stale.outcome())
          .isEqualTo("MARK_SUBMITTED/REFUSED_TRANSITION");
    }
  }

  @AfterAll
  static void writeEvidence() {
    Uc03Evidence.write(RESULTS);
  }

  static Map<String, Outcome> ordered(Map<String, Outcome> results, List<String> order) {
    Map<String, Outcome> out = new LinkedHashMap<>();
    for (String s : order) {
      if (results.containsKey(s)) {
        out.put(s, results.get(s));
      }
    }
    return out;
  }
}
