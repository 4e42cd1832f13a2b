package dev.fencepost.experiments.uc04;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.experiments.harness.Evidence;
import dev.fencepost.experiments.harness.EvidenceAfterAllPassed;
import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.Guards;
import dev.fencepost.experiments.harness.PostedOnce;
import dev.fencepost.experiments.harness.RunResult;
import dev.fencepost.experiments.harness.Worker;
import dev.fencepost.history.Records;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payoutjob.PayoutFailpoint.Point;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * UC-04 with real processes: a worker is SIGKILLed at each intermediate state of one payout; a
 * second worker's run recovers it from paydb's state and the proxy's record, to the expected final
 * state, without resubmitting anything that was sent. docs/evidence/uc04.md is written from these
 * runs.
 */
@Tag("UC-04")
@Tag("FR-24")
class Uc04CrashRecoveryIT {

  static final long FUNDING = 10_000;
  static final long AMOUNT = 2_500;

  record Outcome(
      RunResult run, String note, PayoutState finalState, int movements, long submissions) {}

  /** Runs whose assertions passed, by scenario, for the evidence report. */
  static final Map<String, Outcome> RESULTS = new ConcurrentHashMap<>();

  @RegisterExtension
  static final EvidenceAfterAllPassed EVIDENCE =
      new EvidenceAfterAllPassed(
          EvidenceAfterAllPassed.testMethodsOf(Uc04CrashRecoveryIT.class),
          Uc04CrashRecoveryIT::writeEvidence);

  /** Records a run for the report once its assertions passed. */
  static void passed(Outcome o) {
    RESULTS.put(o.run().scenario(), o);
  }

  static Outcome killedAt(
      String scenario,
      String title,
      Point point,
      Map<String, String> railFault,
      PayoutState expected) {
    try (ExperimentRun run = ExperimentRun.start(scenario, title, Guards.ALL_ON)) {
      Payout payout = run.payout("uc04", FUNDING, AMOUNT);
      if (railFault != null) {
        run.railFaults(Map.of(payout.clientReference(), railFault.get("mode")));
      }
      Worker w1 = run.worker("w1").killAt(point).start();
      Worker w2 = run.worker("w2").loop().gated().start();
      w1.awaitParked(Duration.ofMinutes(3));
      run.kill(w1, "killed at " + point);
      w2.awaitReady(Duration.ofMinutes(3));
      run.openGate(w2, "recovering worker may run");
      run.awaitState(payout, expected);
      // The recovering worker's own effects end with the one that set the expected state.
      run.awaitEffect("w2", e -> true);
      RunResult result = run.finish();
      return new Outcome(
          result,
          railFault == null ? "" : "rail fault " + railFault.get("mode"),
          run.reload(payout).state(),
          run.movements(payout),
          run.submissions(payout.id()));
    }
  }

  static List<String> whats(RunResult run, String worker) {
    return run.effectsOf(worker).stream().map(Records.Effect::what).toList();
  }

  static void assertRecovered(Outcome o) {
    PostedOnce.assertPostedOnce(o.run(), o.finalState(), o.movements(), o.submissions());
    assertThat(o.run().effectsOf("w2")).allMatch(e -> "OK".equals(e.outcome()));
  }

  @Test
  void killedAfterTheClaimTheSuccessorReclaimsAndSubmitsOnce() {
    Outcome o =
        killedAt(
            "uc04-claimed", "UC-04: killed at CLAIMED", Point.CLAIMED, null, PayoutState.POSTED);
    assertRecovered(o);
    // Nothing had been sent: the successor re-claims and is the only one to submit.
    assertThat(whats(o.run(), "w1")).containsExactly("CLAIM");
    assertThat(whats(o.run(), "w2")).containsExactly("RECLAIM", "SUBMIT", "SETTLE");
    passed(o);
  }

  @Test
  @Tag("long")
  void killedAfterTheProxyAnsweredTheSuccessorResolvesFromTheRecordWithoutResubmitting() {
    Outcome o =
        killedAt(
            "uc04-proxy-answered",
            "UC-04: killed after the proxy answered",
            Point.PROXY_ANSWERED,
            null,
            PayoutState.POSTED);
    assertRecovered(o);
    assertThat(whats(o.run(), "w1")).containsExactly("CLAIM", "SUBMIT");
    assertThat(whats(o.run(), "w2")).containsExactly("SETTLE");
    passed(o);
  }

  @Test
  void killedAtRailSubmittedTheSuccessorResolvesFromTheRecordWithoutResubmitting() {
    Outcome o =
        killedAt(
            "uc04-submitted",
            "UC-04: killed at RAIL_SUBMITTED",
            Point.SUBMITTED,
            null,
            PayoutState.POSTED);
    assertRecovered(o);
    assertThat(whats(o.run(), "w1")).containsExactly("CLAIM", "SUBMIT", "MARK_SUBMITTED");
    // Parked at RAIL_SUBMITTED, w1 had committed it on its own; w2 settles from there (ADR 0219).
    assertThat(whats(o.run(), "w2")).containsExactly("SETTLE");
    passed(o);
  }

  @Test
  @Tag("long")
  void killedAtRailAckedTheSuccessorPosts() {
    Outcome o =
        killedAt(
            "uc04-rail-acked",
            "UC-04: killed at RAIL_ACKED",
            Point.RAIL_ACKED,
            null,
            PayoutState.POSTED);
    assertRecovered(o);
    assertThat(whats(o.run(), "w1"))
        .containsExactly("CLAIM", "SUBMIT", "MARK_SUBMITTED", "RECORD_ACKED");
    assertThat(whats(o.run(), "w2")).containsExactly("POST");
    passed(o);
  }

  @Test
  @Tag("long")
  void railTimedOutThenKilledThePayoutStaysAmbiguousWithOneSubmission() {
    Outcome o =
        killedAt(
            "uc04-timeout-then-killed",
            "UC-04/UC-05: the rail timed out, then the worker was killed",
            Point.SUBMITTED,
            Map.of("mode", "TIMEOUT_AFTER_SETTLE"),
            PayoutState.RAIL_AMBIGUOUS);
    assertThat(o.run().report().safe())
        .as(o.run().report().toMarkdown(o.run().scenario()))
        .isTrue();
    assertThat(o.finalState()).isEqualTo(PayoutState.RAIL_AMBIGUOUS);
    assertThat(o.submissions()).isEqualTo(1);
    // The rail settled before it stopped answering: the money moved once; nobody re-sent it.
    assertThat(o.movements()).isEqualTo(1);
    assertThat(whats(o.run(), "w2")).containsExactly("RECORD_TIMEOUT");
    passed(o);
  }

  static void writeEvidence() {
    List<String> order =
        List.of(
            "uc04-claimed",
            "uc04-proxy-answered",
            "uc04-submitted",
            "uc04-rail-acked",
            "uc04-timeout-then-killed");
    Evidence evidence =
        new Evidence(
                "uc04",
                "UC-04: a worker killed at each intermediate state",
                Uc04CrashRecoveryIT.class)
            .paragraph(
                """
                Real processes: embedded PostgreSQL, the lock server, the rail proxy and the stub \
                from their exec jars, payout workers from the experiments module's exec jar (lock \
                TTL %s). Worker w1 parks at a point of one payout and the harness SIGKILLs it \
                there; w2 (started at the same time, held at a start gate until then) recovers the \
                payout from paydb's state and the proxy's record once w1's lease has run out. \
                Every run is an assertion of `Uc04CrashRecoveryIT`."""
                    .formatted(ExperimentRun.LOCK_TTL));
    StringBuilder table =
        new StringBuilder(
            "## Summary\n\n| killed at | w1 attempted | w2 (recovery) attempted | final state | rail"
                + " movements | proxy submissions | verdict |\n|---|---|---|---|---:|---:|---|\n");
    Map<String, Outcome> ordered = new LinkedHashMap<>();
    order.stream().filter(RESULTS::containsKey).forEach(s -> ordered.put(s, RESULTS.get(s)));
    ordered.forEach(
        (s, o) ->
            table
                .append("| ")
                .append(o.run().title())
                .append(" | ")
                .append(String.join(", ", whats(o.run(), "w1")))
                .append(" | ")
                .append(String.join(", ", whats(o.run(), "w2")))
                .append(" | ")
                .append(o.finalState())
                .append(" | ")
                .append(o.movements())
                .append(" | ")
                .append(o.submissions())
                .append(" | ")
                .append(o.run().report().safe() ? "safe" : "**violated**")
                .append(" |\n"));
    evidence.paragraph(table.toString());
    ordered.forEach(
        (s, o) ->
            evidence.scenario(
                o.run().title(),
                "w1: "
                    + o.run().effectsOf("w1").stream()
                        .map(e -> e.what() + " T" + e.token() + " " + e.outcome())
                        .collect(Collectors.joining(", "))
                    + ". w2: "
                    + o.run().effectsOf("w2").stream()
                        .map(e -> e.what() + " T" + e.token() + " " + e.outcome())
                        .collect(Collectors.joining(", "))
                    + (o.note().isEmpty() ? "." : ". " + o.note() + "."),
                o.run()));
    evidence.write();
  }
}
