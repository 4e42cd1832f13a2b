package dev.fencepost.experiments.restore;

import dev.fencepost.experiments.harness.Evidence;
import dev.fencepost.experiments.restore.Inv04RestoreIT.Outcome;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * docs/evidence/inv04-restore.md from the runs of {@link Inv04RestoreIT} and {@link
 * Inv04EtcdRestoreLongIT} whose assertions passed in this JVM.
 */
final class RestoreEvidence {

  static final List<String> ORDER = List.of("inv04-restore-postgres", "inv04-restore-etcd");

  private RestoreEvidence() {}

  static void write(Map<String, Outcome> results) {
    List<Outcome> shown = ORDER.stream().map(results::get).filter(Objects::nonNull).toList();
    if (shown.isEmpty()) {
      return;
    }
    Evidence evidence =
        new Evidence(
                "inv04-restore",
                "INV-04: restoring the lock backend from a backup",
                shown.stream().map(Outcome::test).distinct().toArray(Class<?>[]::new))
            .paragraph(
                "Each run, on its own lock backend and lock server: two accounts get a payout each"
                    + " (worker w1); the lock server is stopped and the backend backed up; another"
                    + " tenant takes "
                    + Inv04RestoreIT.OTHER_TRAFFIC
                    + " grants on another key and each account gets a second payout (w2), so the"
                    + " guards now hold tokens the backup has never seen; the lock server is stopped"
                    + " and the backup restored. **(a)** The lock server is started on the restored"
                    + " backend at once, skipping the procedure, and each account gets a third payout"
                    + " (w3). **(b)** The operator then applies the documented procedure (ADR 0003 /"
                    + " ADR 0016) and w4 runs the same payouts.")
            .paragraph(
                "The grant history that shows the reissue cannot live in the restored store: the"
                    + " restore erases it. The run reads the backend's history into the run directory"
                    + " before the restore and again at the end, and the history checker's"
                    + " `GrantEpochs` joins the reads: records the restored store adds are"
                    + " renumbered after the last one read before the restore (their own ids start"
                    + " again after the backup's last one), so `seq` stays the real order of issue,"
                    + " and each carries the number of restores before it. "
                    + Inv04RestoreIT.DETECT_THE_REISSUE.stream()
                        .map(c -> "`" + c + "`")
                        .collect(Collectors.joining(", "))
                    + " are therefore expected to be non-zero here: they are the detection of (a)"
                    + " (across keys against every token issued before the restore, per key, and in"
                    + " the clients' real-time order). Every other safety counter is 0: nothing was"
                    + " accepted below a fence, no effect without a grant, no duplicate movement or"
                    + " posting.");
    for (Outcome o : shown) {
      long hazardEffects = o.run().effectsOf("w3").size();
      String prose =
          "How: "
              + o.procedure()
              + ".\n\n"
              + "| figure | value |\n|---|---|\n"
              + "| highest token issued before the restore | "
              + o.highestBeforeRestore()
              + " |\n"
              + "| (a) tokens issued by the restored backend (w3) | "
              + o.reissued()
              + " |\n"
              + "| (a) of those, counted as reissued by the checker"
              + " (`token_reissued_after_restore`) | "
              + o.run().count("token_reissued_after_restore")
              + " |\n"
              + "| (a) w3's writes, all refused by the guards (FENCED_OUT) | "
              + hazardEffects
              + " |\n"
              + "| (a) the payouts after w3 | "
              + String.join(", ", o.statesAfterHazard())
              + " |\n"
              + "| G: the guards' highest fence / high-water | "
              + o.guardsHighest()
              + " |\n"
              + "| (b) floor applied | "
              + o.floor()
              + " |\n"
              + "| (b) tokens issued after the floor (w4) | "
              + o.afterFloor()
              + " |\n"
              + "| (b) the payouts after w4 | "
              + String.join(", ", o.statesAfterProcedure())
              + " |\n";
      evidence.scenario(o.backend() + " backend", prose, o.run());
    }
    evidence.write();
  }
}
