package dev.fencepost.launcher.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Sends a signal to processes by PID, through {@code kill(1)}: the one way the launcher and the
 * tests pause, resume or kill a process they started. Java itself can only ask a process to end
 * ({@link ProcessHandle#destroy()}, {@link ProcessHandle#destroyForcibly()}); freezing one (STOP)
 * and thawing it (CONT) need a signal by name.
 *
 * <p>Every caller names the processes it started, never a pattern: nothing here looks processes up.
 */
public final class Signals {

  private static final long TIMEOUT_SECONDS = 10;

  private Signals() {}

  /**
   * Sends {@code signal} (a name as {@code kill -l} lists it: STOP, CONT, KILL, TERM) to every one
   * of {@code pids} in one {@code kill(1)}.
   *
   * @throws IllegalStateException if any of them could not be signalled (gone, or not ours)
   */
  public static void send(String signal, Collection<Long> pids) {
    Result result = trySend(signal, pids);
    if (!result.allSignalled()) {
      throw new IllegalStateException(
          "kill -" + signal + " " + pids + " failed: " + result.output().strip());
    }
  }

  /** {@link #send(String, Collection)} to one process. */
  public static void send(String signal, long pid) {
    send(signal, List.of(pid));
  }

  /**
   * What {@code kill(1)} did: whether it signalled every PID, and what it said about those it could
   * not.
   */
  public record Result(boolean allSignalled, String output) {}

  /**
   * Sends {@code signal} to every one of {@code pids} in one {@code kill(1)}, as {@link #send}, and
   * reports instead of throwing when some could not be signalled: {@code kill(1)} still signals the
   * others, which is what a crash of a process tree whose members may already be exiting wants.
   */
  public static Result trySend(String signal, Collection<Long> pids) {
    if (pids.isEmpty()) {
      throw new IllegalArgumentException("no process to signal");
    }
    List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
    pids.forEach(pid -> command.add(Long.toString(pid)));
    try {
      Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
      if (!kill.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        kill.destroyForcibly();
        throw new IllegalStateException("kill -" + signal + " " + pids + " did not return");
      }
      String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return new Result(kill.exitValue() == 0, output);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling " + pids, e);
    }
  }
}
