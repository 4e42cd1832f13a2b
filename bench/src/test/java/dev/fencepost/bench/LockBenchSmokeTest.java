package dev.fencepost.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.bench.Suite.Cell;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness must not rot: one very short iteration of every target and operation, in the normal
 * test command. It asserts only that every target produced samples for every operation it supports,
 * and that the report is written between its markers; never a timing.
 */
class LockBenchSmokeTest {

  @TempDir Path temp;

  @Test
  void everyTargetProducesSamplesInAShortRun() throws Exception {
    LockBench.Settings settings =
        new LockBench.Settings(
            1,
            Duration.ofMillis(100),
            Duration.ZERO,
            List.of(2),
            3,
            20,
            Duration.ofSeconds(1),
            false,
            temp.resolve("work"),
            List.of());
    List<String> log = new ArrayList<>();
    LockBench.Outcome outcome = LockBench.run(settings, log::add);

    List<String> missing = new ArrayList<>();
    for (LockTarget target : outcome.targets()) {
      for (Suite.Scenario scenario : outcome.scenarios()) {
        if (!target.ops().contains(scenario.op())) {
          continue;
        }
        Cell cell = outcome.suite().cell(scenario, target.id());
        if (cell == null || cell.operations == 0) {
          missing.add(
              target.id()
                  + " "
                  + scenario.key()
                  + (cell == null ? "" : " first error: " + cell.firstError));
        }
      }
    }
    assertThat(missing).as("targets without samples; log:\n" + String.join("\n", log)).isEmpty();
    assertThat(outcome.serverLoad())
        .allSatisfy(
            r -> {
              assertThat(r.error()).as(r.server() + " heartbeat load failed").isNull();
              assertThat(r.heartbeats().operations()).isPositive();
            });

    Path markdown = temp.resolve("benchmarks.md");
    Files.writeString(
        markdown,
        "# Benchmarks\n\nkept\n\n"
            + Report.START
            + "\nold\n"
            + Report.END
            + "\n\n## Payout benchmarks\n\nalso kept\n");
    Report.write(outcome, markdown, "smoke");
    String written = Files.readString(markdown);
    assertThat(written)
        .contains("kept", "also kept", "## Lock benchmarks")
        .doesNotContain("\nold\n");
    assertThat(temp.resolve(Report.PLOT)).isNotEmptyFile();
  }
}
