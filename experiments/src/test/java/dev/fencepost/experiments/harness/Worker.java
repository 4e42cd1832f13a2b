package dev.fencepost.experiments.harness;

import dev.fencepost.launcher.process.JavaProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.awaitility.Awaitility;

/**
 * One payout worker process of a run (this module's exec jar). Signals go through {@link
 * ExperimentRun} so that each one is recorded as an {@code event}.
 */
public final class Worker {

  private final String id;
  private final JavaProcess process;
  private final Path controlDir;

  Worker(String id, JavaProcess process, Path controlDir) {
    this.id = id;
    this.process = process;
    this.controlDir = controlDir;
  }

  public String id() {
    return id;
  }

  public JavaProcess process() {
    return process;
  }

  public Path controlDir() {
    return controlDir;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** Whether the worker has parked at its point (and so not passed it). */
  public boolean isParked() {
    return Files.exists(controlDir.resolve("parked"));
  }

  /**
   * Waits until the worker parks at its {@code pause-at}/{@code kill-at} point; what it wrote:
   * payoutId, point, token, account.
   */
  public Map<String, String> awaitParked(Duration atMost) {
    Awaitility.await(id + " parked (log " + process.log() + ")")
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              if (!process.isAlive() && !isParked()) {
                throw new IllegalStateException(id + " exited before parking; " + process.log());
              }
              return isParked();
            });
    try {
      Map<String, String> parked = new LinkedHashMap<>();
      for (String line : Files.readAllLines(controlDir.resolve("parked"))) {
        int eq = line.indexOf('=');
        if (eq > 0) {
          parked.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
      return parked;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Opens the start gate of a gated worker (it polls for the file). */
  void openGate() {
    try {
      Files.createDirectories(controlDir);
      Files.writeString(controlDir.resolve("go"), "go\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits until a gated worker has started up and waits at its gate. */
  public void awaitReady(Duration atMost) {
    Awaitility.await(id + " ready at its gate (log " + process.log() + ")")
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              if (!process.isAlive()) {
                throw new IllegalStateException(id + " exited before its gate; " + process.log());
              }
              return Files.exists(controlDir.resolve("ready"));
            });
  }

  /** Lets a parked worker go on once it runs (it polls for the file). Sends no signal. */
  void releaseParking() {
    try {
      Files.createDirectories(controlDir);
      Files.writeString(controlDir.resolve("resume"), "resume\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits for the worker to end by itself (a once-mode worker after its run); its exit code. */
  public int awaitExit(Duration atMost) {
    return process.awaitExit(atMost);
  }
}
