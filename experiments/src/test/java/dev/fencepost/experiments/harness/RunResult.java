package dev.fencepost.experiments.harness;

import dev.fencepost.history.CheckReport;
import dev.fencepost.history.History;
import dev.fencepost.history.Records;
import java.nio.file.Path;
import java.util.List;

/**
 * What a run left: its directory (target/runs/scenario), everything read back from it, the
 * checker's report, and the timeline picture.
 */
public record RunResult(
    String scenario, String title, Path dir, History history, CheckReport report, Path timeline) {

  public long count(String counter) {
    return report.count(counter);
  }

  /** The effects one worker recorded, in file order. */
  public List<Records.Effect> effectsOf(String worker) {
    return history.effects.stream().filter(e -> e.worker().equals(worker)).toList();
  }

  /** Effects a guard refused (outcome starting FENCED). */
  public List<Records.Effect> fencedEffects() {
    return history.effects.stream()
        .filter(e -> e.outcome() != null && e.outcome().startsWith("FENCED"))
        .toList();
  }
}
