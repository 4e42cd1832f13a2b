package dev.fencepost.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.bench.Suite.Cell;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness must not rot: one very short iteration of every target and operation. In the long
 * tier (about 40 s: it starts both lock servers, PostgreSQL and etcd), since the benchmark scripts
 * run the same harness and fail loudly; the harness's parts keep their own tests in the test
 * command. It asserts that every target produced samples for every operation it supports, that
 * every hand-off of every target with a waiting acquire (the lock servers included) is a sample,
 * and that the report is written between its markers, names the commit and the load, calls itself a
 * smoke run and quotes no p99 its samples cannot carry; never a timing.
 */
@Tag("long")
class LockBenchSmokeTest {

  @TempDir Path temp;

  @Test
  void everyTargetProducesSamplesInAShortRun() throws Exception {
    LockBench.Settings settings =
        new LockBench.Settings(
            // 100 ms a cell, going on (up to 5 s) only until it has one sample.
            new Suite.Plan(1, Duration.ZERO, Duration.ofMillis(100), Duration.ofSeconds(5), 1),
            Duration.ZERO,
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
    List<String> handoffTargets = new ArrayList<>();
    Suite.Scenario handoff = new Suite.Scenario(Op.HANDOFF, 3);
    for (LockTarget target : outcome.targets()) {
      if (!target.ops().contains(Op.HANDOFF)) {
        continue;
      }
      handoffTargets.add(target.id());
      Handoffs.Tally h = outcome.suite().cell(handoff, target.id()).handoffs;
      assertThat(h).as(target.id()).isNotNull();
      assertThat(h.samples).as(target.id()).isPositive();
      assertThat(h.samples + h.drainHandoffs)
          .as(target.id() + ": every grant after the first")
          .isEqualTo(h.grants - 1);
      assertThat(h.releases).as(target.id()).isEqualTo(h.grants);
      assertThat(h.overlaps).as(target.id()).isZero();
      assertThat(h.sameClient + h.toAnother.getTotalCount()).as(target.id()).isEqualTo(h.samples);
    }
    assertThat(handoffTargets).contains("E1", "E2", "E3", "P1", "P2", "P4");
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
        .contains("from commit `" + outcome.commit() + "`")
        .contains("before the run: " + outcome.loadBefore())
        .contains("**Smoke-size run**")
        .contains(Stats.NOT_ENOUGH)
        .contains("back to the releaser")
        .doesNotContain("\nold\n");
    assertThat(temp.resolve(Report.PLOT)).isNotEmptyFile();
  }
}
