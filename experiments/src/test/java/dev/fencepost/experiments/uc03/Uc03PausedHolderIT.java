package dev.fencepost.experiments.uc03;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.experiments.harness.EvidenceAfterAllPassed;
import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.Guards;
import dev.fencepost.experiments.harness.PostedOnce;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * UC-03 with real processes: a worker is SIGSTOPped past its lease, a second worker takes over and
 * finishes, the first is SIGCONTed and goes on with its stale token. With every guard on nothing
 * gets through, wherever the pause lands ({@link FreezePoint}); the negative-control matrix ({@link
 * Cell}: the experiment-only switches of ADR 0035 and ADR 0043, bound by ADR 0100) switches guards
 * off and shows what each one was catching. docs/evidence/uc03.md is written from these runs once
 * every one of them has passed.
 */
@Tag("UC-03")
@Tag("INV-01")
@Tag("INV-05")
@Tag("FR-29")
@Tag("NFR-07")
class Uc03PausedHolderIT {

  static final long FUNDING = 10_000;
  static final long AMOUNT = 2_500;

  /** Runs whose assertions passed, by scenario, for the evidence report. */
  static final Map<String, Outcome> RESULTS = new ConcurrentHashMap<>();

  @RegisterExtension
  static final EvidenceAfterAllPassed EVIDENCE =
      new EvidenceAfterAllPassed(
          FreezePoint.values().length + Cell.values().length, () -> Uc03Evidence.write(RESULTS));

  /** One run and what it ended with. */
  record Outcome(
      RunResult run, Guards guards, PayoutState finalState, int movements, long submissions) {}

  /** Where w1 is frozen, with every guard on, and what stops it once it thaws. */
  enum FreezePoint {
    CLAIMED(
        "uc03-claimed",
        "UC-03: frozen after the claim",
        Point.CLAIMED,
        true,
        "frozen after the claim, its submission is refused by the proxy's high-water",
        o -> refusedAt(o, "SUBMIT")),
    PROXY_ANSWERED(
        "uc03-proxy-answered",
        "UC-03: frozen after the proxy answered",
        Point.PROXY_ANSWERED,
        true,
        "frozen after the proxy answered, its paydb write is refused by the fence",
        o -> refusedAt(o, "SETTLE")),
    RAIL_ACKED(
        "uc03-rail-acked",
        "UC-03: frozen after RAIL_ACKED, before posting",
        Point.RAIL_ACKED,
        true,
        "frozen after RAIL_ACKED, its posting is refused by the fence",
        o -> refusedAt(o, "POST")),
    CLAIMED_LOCAL_CHECK(
        "uc03-claimed-local-check",
        "UC-03: frozen after the claim, local deadline check in force",
        Point.CLAIMED,
        false,
        "with the local deadline check in force, the thawed worker stops before any guard",
        Uc03PausedHolderIT::stoppedBeforeAnyGuard);

    final String scenario;
    final String title;
    final Point point;
    final boolean pauseLandsAfterCheck;
    private final String says;
    final Consumer<Outcome> stale;

    FreezePoint(
        String scenario,
        String title,
        Point point,
        boolean pauseLandsAfterCheck,
        String says,
        Consumer<Outcome> stale) {
      this.scenario = scenario;
      this.title = title;
      this.point = point;
      this.pauseLandsAfterCheck = pauseLandsAfterCheck;
      this.says = says;
      this.stale = stale;
    }

    @Override
    public String toString() {
      return scenario + ": " + says;
    }
  }

  /** The two interleavings the matrix uses. */
  enum Race {
    /** w2 takes over after w1's claim and finishes before w1 thaws ({@link Takeover}). */
    CLAIM,
    /** w2 re-claims and parks before submitting; w1 thaws and submits first. */
    RECLAIM
  }

  /** The negative-control matrix: which guards are off, and what got through. */
  enum Cell {
    B0_FENCE_ON(
        "b0. every guard on (reclaim race)",
        "uc03-b-fence-on",
        "Reclaim race, every guard on",
        Guards.ALL_ON,
        Race.RECLAIM,
        "the paydb fence refuses the stale write",
        Uc03PausedHolderIT::b0ThePaydbFenceRefusesTheStaleWrite),
    B_FENCE_OFF(
        "b. resource fence off (reclaim race)",
        "uc03-b-fence-off",
        "Reclaim race, resource fence off",
        Guards.ALL_ON.withResourceFence(false),
        Race.RECLAIM,
        "the stale holder posts the payout",
        Uc03PausedHolderIT::bTheStaleHolderPostsThePayout),
    C_HIGH_WATER_OFF(
        "c. high-water off",
        "uc03-c-high-water-off",
        "High-water off",
        Guards.ALL_ON.withHighWater(false),
        Race.CLAIM,
        "uniqueness refuses the second submission",
        Uc03PausedHolderIT::cUniquenessRefusesTheSecondSubmission),
    D_UNIQUENESS_OFF(
        "d. uniqueness off",
        "uc03-d-uniqueness-off",
        "Uniqueness off",
        Guards.ALL_ON.withUniqueness(false),
        Race.CLAIM,
        "the high-water refuses the stale submission",
        Uc03PausedHolderIT::dHighWaterRefusesTheStaleSubmission),
    E_PROXY_GUARDS_OFF(
        "e. high-water and uniqueness off",
        "uc03-e-proxy-guards-off",
        "High-water and uniqueness off, resource fence on",
        Guards.ALL_ON.withHighWater(false).withUniqueness(false),
        Race.CLAIM,
        "the money is sent twice",
        Uc03PausedHolderIT::eTheMoneyIsSentTwice),
    F_EVERYTHING_OFF(
        "f. every guard off",
        "uc03-f-everything-off",
        "Every guard off",
        new Guards(false, false, false),
        Race.CLAIM,
        "the money is sent twice and only the state machine refuses the stale write",
        Uc03PausedHolderIT::fOnlyTheStateMachineRefusesTheStaleWrite);

    final String label;
    final String scenario;
    final String title;
    final Guards guards;
    final Race race;
    private final String says;
    final Consumer<Outcome> expected;

    Cell(
        String label,
        String scenario,
        String title,
        Guards guards,
        Race race,
        String says,
        Consumer<Outcome> expected) {
      this.label = label;
      this.scenario = scenario;
      this.title = title;
      this.guards = guards;
      this.race = race;
      this.says = says;
      this.expected = expected;
    }

    @Override
    public String toString() {
      return scenario + ": " + label + ", " + says;
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(value = FreezePoint.class, names = "CLAIMED")
  void frozenPastItsLeaseWithEveryGuardOnNothingGetsThrough(FreezePoint freeze) {
    frozenAt(freeze);
  }

  /**
   * The long tier's freeze points: the fence's refusal of the stale SETTLE is also what matrix cell
   * b0 shows in the test command, the stale posting's refusal is the same fence at a later
   * transition, and the local deadline check is the lock client's own PausedHolderTest.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(value = FreezePoint.class, names = "CLAIMED", mode = EnumSource.Mode.EXCLUDE)
  @Tag("long")
  void frozenAfterTheProxyAnsweredWithEveryGuardOnNothingGetsThrough(FreezePoint freeze) {
    frozenAt(freeze);
  }

  private static void frozenAt(FreezePoint freeze) {
    Outcome o =
        claimRace(
            freeze.scenario,
            freeze.title,
            Guards.ALL_ON,
            freeze.point,
            freeze.pauseLandsAfterCheck);
    assertSafeAndPostedOnce(o);
    freeze.stale.accept(o);
    RESULTS.put(freeze.scenario, o);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(
      value = Cell.class,
      names = {"B0_FENCE_ON", "B_FENCE_OFF"})
  void negativeControlMatrix(Cell cell) {
    matrixCell(cell);
  }

  /**
   * The long tier's cells: each proxy guard alone, and both proxy guards off (with and without
   * paydb's fence). The rail proxy's own FencingSwitchNegativeControlTest and payment-resource's
   * FencingDisabledNegativeControlTest show each guard's removal in the test command; here they
   * cost a proxy restart each.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(
      value = Cell.class,
      names = {"B0_FENCE_ON", "B_FENCE_OFF"},
      mode = EnumSource.Mode.EXCLUDE)
  @Tag("long")
  void negativeControlMatrixOneProxyGuardOff(Cell cell) {
    matrixCell(cell);
  }

  private static void matrixCell(Cell cell) {
    Outcome o =
        switch (cell.race) {
          case CLAIM -> claimRace(cell.scenario, cell.title, cell.guards, Point.CLAIMED, true);
          case RECLAIM -> reclaimRace(cell.scenario, cell.title, cell.guards);
        };
    cell.expected.accept(o);
    RESULTS.put(cell.scenario, o);
  }

  /** w1 frozen at {@code point} with {@code guards}; w2 finishes; w1 thaws ({@link Takeover}). */
  static Outcome claimRace(
      String scenario, String title, Guards guards, Point point, boolean pauseLandsAfterCheck) {
    try (ExperimentRun run = ExperimentRun.start(scenario, title, guards)) {
      Payout payout = run.payout("uc03", FUNDING, AMOUNT);
      Takeover.pausedPastLease(run, payout, point, pauseLandsAfterCheck);
      return outcome(run, guards, payout);
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
      return outcome(run, guards, payout);
    }
  }

  private static Outcome outcome(ExperimentRun run, Guards guards, Payout payout) {
    RunResult result = run.finish();
    return new Outcome(
        result,
        guards,
        run.reload(payout).state(),
        run.movements(payout),
        run.submissions(payout.id()));
  }

  static void assertSafeAndPostedOnce(Outcome o) {
    PostedOnce.assertPostedOnce(o.run(), o.finalState(), o.movements(), o.submissions());
    assertThat(o.run().history().accounts)
        .filteredOn(a -> a.id().startsWith("uc03"))
        .singleElement()
        .satisfies(a -> assertThat(a.balance()).isEqualTo(FUNDING - AMOUNT));
  }

  /** w1's last attempt was {@code what}, refused by a guard: one fenced effect, one event. */
  static void refusedAt(Outcome o, String what) {
    Records.Effect stale = last(o.run().effectsOf("w1"));
    assertThat(stale.what()).isEqualTo(what);
    assertThat(stale.outcome()).isEqualTo("FENCED_OUT");
    assertThat(o.run().fencedEffects()).hasSize(1);
    assertThat(fencedOutEvents(o.run(), "w1")).isEqualTo(1);
  }

  static void stoppedBeforeAnyGuard(Outcome o) {
    assertThat(o.run().effectsOf("w1")).extracting(Records.Effect::what).containsExactly("CLAIM");
    assertThat(o.run().fencedEffects()).isEmpty();
    assertThat(fencedOutEvents(o.run(), "w1")).isZero();
  }

  static void b0ThePaydbFenceRefusesTheStaleWrite(Outcome o) {
    assertSafeAndPostedOnce(o);
    Records.Effect stale = last(o.run().effectsOf("w1"));
    assertThat(stale.what()).isEqualTo("SETTLE");
    assertThat(stale.outcome()).isEqualTo("FENCED_OUT");
    // w1's submission under its stale token was accepted by the proxy and moved the money once;
    // w2 found it as a duplicate and completed the payout from the proxy's record.
    assertThat(o.run().effectsOf("w1"))
        .anySatisfy(e -> assertThat(e.what() + "/" + e.outcome()).isEqualTo("SUBMIT/OK"));
    assertThat(o.run().effectsOf("w2"))
        .anySatisfy(e -> assertThat(e.what() + "/" + e.outcome()).isEqualTo("SUBMIT/DUPLICATE"));
  }

  static void bTheStaleHolderPostsThePayout(Outcome o) {
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
        .contains("SUBMIT/DUPLICATE", "SETTLE/REFUSED_TRANSITION");
  }

  static void cUniquenessRefusesTheSecondSubmission(Outcome o) {
    assertSafeAndPostedOnce(o);
    assertThat(o.run().effectsOf("w1"))
        .anySatisfy(e -> assertThat(e.what() + "/" + e.outcome()).isEqualTo("SUBMIT/DUPLICATE"));
    assertThat(lastOf(o, "w1")).isEqualTo("SETTLE/FENCED_OUT");
  }

  static void dHighWaterRefusesTheStaleSubmission(Outcome o) {
    assertSafeAndPostedOnce(o);
    assertThat(lastOf(o, "w1")).isEqualTo("SUBMIT/FENCED_OUT");
  }

  static void eTheMoneyIsSentTwice(Outcome o) {
    assertThat(o.run().count("duplicate_rail_movement")).isEqualTo(1);
    assertThat(o.movements()).isEqualTo(2);
    assertThat(o.finalState()).isEqualTo(PayoutState.POSTED);
    assertThat(o.run().count("multiple_postings")).isZero();
    assertThat(lastOf(o, "w1")).isEqualTo("SETTLE/FENCED_OUT");
  }

  static void fOnlyTheStateMachineRefusesTheStaleWrite(Outcome o) {
    assertThat(o.run().count("duplicate_rail_movement")).isEqualTo(1);
    assertThat(o.movements()).isEqualTo(2);
    assertThat(o.run().count("multiple_postings")).isZero();
    assertThat(lastOf(o, "w1")).isEqualTo("SETTLE/REFUSED_TRANSITION");
  }

  /** A worker's last effect as {@code WHAT/OUTCOME}. */
  static String lastOf(Outcome o, String worker) {
    Records.Effect e = last(o.run().effectsOf(worker));
    return e.what() + "/" + e.outcome();
  }

  static Records.Effect last(List<Records.Effect> effects) {
    assertThat(effects).isNotEmpty();
    return effects.get(effects.size() - 1);
  }

  /** The {@code lock.fenced_out} events in a worker's log. */
  static long fencedOutEvents(RunResult run, String worker) {
    try {
      return Files.readAllLines(run.dir().resolve("logs").resolve(worker + ".log")).stream()
          .filter(line -> line.contains("lock.fenced_out"))
          .count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
