package dev.fencepost.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmark scripts start measuring only once the 1-minute load is below 1 ({@code
 * bench_await_quiet} in {@code provenance.sh}), and say so when it never came down.
 */
class AwaitQuietTest {

  @TempDir Path dir;

  private String awaitQuiet(String loadavg, int limitSeconds) throws Exception {
    Path file = Files.writeString(dir.resolve("loadavg"), loadavg);
    ProcessBuilder pb =
        new ProcessBuilder("bash", "-c", ". ./provenance.sh && bench_await_quiet")
            .redirectErrorStream(true);
    // Set through the environment, as a user sets BENCH_QUIET_SECONDS.
    pb.environment().put("BENCH_LOADAVG_FILE", file.toString());
    pb.environment().put("BENCH_QUIET_SECONDS", Integer.toString(limitSeconds));
    Process run = pb.start();
    String out = new String(run.getInputStream().readAllBytes()).strip();
    assertThat(run.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(run.exitValue()).isZero();
    return out;
  }

  @Test
  void aQuietMachineIsMeasuredAtOnce() throws Exception {
    assertThat(awaitQuiet("0.42 1.90 2.10 1/123 4567\n", 600))
        .isEqualTo("load 0.42 after 0 s of waiting");
  }

  @Test
  void aLoadThatNeverComesDownIsWaitedForOnlyAsLongAsAllowedAndSaidSo() throws Exception {
    assertThat(awaitQuiet("2.66 1.90 2.10 1/123 4567\n", 0))
        .isEqualTo("load 2.66 after 0 s of waiting (not quiet)");
  }

  @Test
  void aLoadOfExactlyOneIsNotQuiet() throws Exception {
    assertThat(awaitQuiet("1.00 0.50 0.50 1/123 4567\n", 0)).endsWith("(not quiet)");
  }
}
