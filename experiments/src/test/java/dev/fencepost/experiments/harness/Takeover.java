package dev.fencepost.experiments.harness;

import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payoutjob.PayoutFailpoint.Point;
import java.time.Duration;

/**
 * The UC-03 interleaving, reusable: worker {@code w1} parks at a point and is SIGSTOPped there; its
 * lease runs out; a successor {@code w2} (a looping worker) takes the account over and finishes the
 * payout; then {@code w1} is SIGCONTed and goes on with its stale grant.
 */
public final class Takeover {

  private Takeover() {}

  /** The two workers of one takeover, after it. */
  public record Workers(Worker stale, Worker successor) {}

  /**
   * Runs the interleaving on {@code payout} and waits for {@code w1} to end its run. The successor
   * keeps looping until {@link ExperimentRun#finish()}.
   *
   * @param pauseLandsAfterCheck true: the thawed worker acts without re-checking its deadline (the
   *     pause hit just after {@code ensureHeld()}); false: the starter's local check is in force
   */
  public static Workers pausedPastLease(
      ExperimentRun run,
      Payout payout,
      Point point,
      boolean pauseLandsAfterCheck,
      PayoutState... successorDone) {
    ExperimentRun.WorkerSpec spec = run.worker("w1").pauseAt(point);
    if (pauseLandsAfterCheck) {
      spec.pauseLandsAfterCheck();
    }
    Worker w1 = spec.start();
    Worker w2 = run.worker("w2").loop().gated().start();
    w1.awaitParked(Duration.ofMinutes(3));
    run.stop(w1, "parked at " + point + "; frozen past its lease");
    w2.awaitReady(Duration.ofMinutes(3));
    run.openGate(w2, "successor may run");
    run.awaitState(
        payout, successorDone.length == 0 ? new PayoutState[] {PayoutState.POSTED} : successorDone);
    run.resume(w1, true, "thawed after the takeover");
    w1.awaitExit(Duration.ofMinutes(2));
    return new Workers(w1, w2);
  }
}
