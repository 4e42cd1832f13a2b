package dev.fencepost.launcher.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Signals reach exactly the PIDs named, all in one {@code kill(1)}; a PID that cannot be signalled
 * is an error for {@link Signals#send} and a report for {@link Signals#trySend}, which still
 * signals the rest. Each test signals only {@code sleep} processes it started.
 */
class SignalsTest {

  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void killWhatWasStarted() {
    started.forEach(Process::destroyForcibly);
  }

  @Test
  void stopFreezesAndContThawsEveryProcessNamed() throws IOException {
    Process first = sleeper();
    Process second = sleeper();

    Signals.send("STOP", List.of(first.pid(), second.pid()));
    await().atMost(Duration.ofSeconds(10)).until(() -> state(first) == 'T' && state(second) == 'T');

    Signals.send("CONT", List.of(first.pid(), second.pid()));
    await().atMost(Duration.ofSeconds(10)).until(() -> state(first) != 'T' && state(second) != 'T');
    assertThat(first.isAlive()).isTrue();
    assertThat(second.isAlive()).isTrue();
  }

  @Test
  void aProcessThatIsGoneFailsSendAndTheMessageSaysWhich() throws Exception {
    Process gone = sleeper();
    gone.destroyForcibly().waitFor();

    assertThatThrownBy(() -> Signals.send("TERM", gone.pid()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("kill -TERM [" + gone.pid() + "] failed");
  }

  @Test
  void trySendSignalsTheLivingAndReportsTheGone() throws Exception {
    Process gone = sleeper();
    gone.destroyForcibly().waitFor();
    Process living = sleeper();

    Signals.Result result = Signals.trySend("KILL", List.of(gone.pid(), living.pid()));

    assertThat(result.allSignalled()).isFalse();
    assertThat(result.output()).contains(Long.toString(gone.pid()));
    assertThat(living.waitFor()).as("the living one was killed all the same").isEqualTo(137);
  }

  @Test
  void anEmptyListIsRefusedRatherThanSentAsABareKill() {
    assertThatThrownBy(() -> Signals.send("KILL", List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private Process sleeper() throws IOException {
    Process p = new ProcessBuilder("sleep", "600").start();
    started.add(p);
    return p;
  }

  /** The process's state letter from {@code /proc/<pid>/stat}: T when stopped. */
  private static char state(Process p) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
    return stat.charAt(stat.lastIndexOf(')') + 2);
  }
}
