package dev.fencepost.experiments.uc03;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.Guards;
import dev.fencepost.experiments.harness.RunResult;
import dev.fencepost.experiments.harness.Takeover;
import dev.fencepost.history.Records;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payoutjob.PayoutFailpoint.Point;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * UC-03 with real processes, every guard on: a worker is SIGSTOPped past its lease at three points,
 * a second worker takes over and finishes, the first is SIGCONTed and tries to go on.
 */
class PausedHolderIT {

  static long fencedOutEvents(RunResult run, String worker) throws IOException {
    return Files.readAllLines(run.dir().resolve("logs").resolve(worker + ".log")).stream()
        .filter(line -> line.contains("lock.fenced_out"))
        .count();
  }

  @Test
  void aHolderFrozenAfterItsClaimIsRefusedByTheProxyHighWater() throws Exception {
    RunResult run;
    Payout payout;
    try (ExperimentRun r =
        ExperimentRun.start("uc03-claimed", "UC-03: frozen after the claim", Guards.ALL_ON)) {
      payout = r.payout("uc03c", 10_000, 2_500);
      Takeover.pausedPastLease(r, payout, Point.CLAIMED, true);
      run = r.finish();
      assertThat(r.reload(payout).state()).isEqualTo(PayoutState.POSTED);
      assertThat(r.movements(payout)).isEqualTo(1);
    }
    assertThat(run.report().safe()).as(run.report().toMarkdown("uc03-claimed")).isTrue();
    List<Records.Effect> w1 = run.effectsOf("w1");
    assertThat(w1.get(w1.size() - 1).what()).isEqualTo("SUBMIT");
    assertThat(w1.get(w1.size() - 1).outcome()).isEqualTo("FENCED_OUT");
    assertThat(run.fencedEffects()).hasSize(1);
    assertThat(fencedOutEvents(run, "w1")).isEqualTo(1);
  }
}
