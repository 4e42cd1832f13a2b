package dev.fencepost.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP client comparison must not rot: one tiny run of every stack, call and thread count
 * against a real rail stub. In the long tier, like {@link LockBenchSmokeTest} (it starts the
 * identity issuer and the rail stub as processes). It asserts that every cell completed requests
 * with no error and that the report names the commit and the load; never a timing.
 */
@Tag("long")
class HttpClientCostSmokeTest {

  @TempDir Path temp;

  @Test
  void everyStackCompletesRequestsOfEveryCallWithoutAnError() throws Exception {
    HttpClientCost.Settings settings =
        new HttpClientCost.Settings(
            List.of(1, 2),
            1,
            Duration.ZERO,
            Duration.ofMillis(200),
            Duration.ofMillis(200),
            Duration.ZERO,
            temp.resolve("work"));
    List<String> log = new ArrayList<>();

    HttpClientCost.Outcome outcome = HttpClientCost.run(settings, log::add);

    // (a) exists only while the lock starter has its own transport, (d) once the shared stack does
    // (ADR 0197); (b) and (c) always.
    int stacks =
        2
            + (HttpClientCost.ownTransportPresent() ? 1 : 0)
            + (HttpClientCost.classPresent(HttpClientCost.SHIPPED_STACK) ? 1 : 0);
    assertThat(outcome.stacks()).as("every stack in this build").hasSize(stacks);
    assertThat(outcome.missing()).hasSize(4 - stacks);
    assertThat(outcome.cells()).hasSize(2 * 2 * stacks);
    assertThat(outcome.cells())
        .as("log:\n" + String.join("\n", log))
        .allSatisfy(
            cell -> {
              assertThat(cell.result().errors())
                  .as(cell.stack() + " " + cell.call() + " " + cell.result().firstError())
                  .isZero();
              assertThat(cell.result().operations()).isPositive();
            });
    assertThat(HttpClientCost.report(outcome))
        .contains("From commit `" + outcome.commit() + "`")
        .contains("before the run: " + outcome.loadBefore())
        .contains("| 2 | POST | (c) |");
    assertThat(outcome.stacks()).contains(HttpClientCost.Stack.JDK, HttpClientCost.Stack.HC5);
  }
}
