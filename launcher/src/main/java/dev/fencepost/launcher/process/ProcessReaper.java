package dev.fencepost.launcher.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Makes every process the launcher starts die with the JVM that started it, however the JVM ends.
 *
 * <p>Two mechanisms, because each covers a case the other cannot: a shutdown hook kills every
 * registered process when the JVM exits normally or on SIGTERM (surefire's usual way); a tiny
 * per-process watchdog ({@code tail --pid=<jvm>}, then {@code kill -KILL <etcd>}) covers a JVM that
 * is itself SIGKILLed and never runs its hooks. Both only ever signal PIDs this JVM started, and
 * the watchdog is stopped whenever its member is killed on purpose, so it can never outlive its own
 * etcd process and hit a recycled PID.
 */
public final class ProcessReaper {

  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(new Thread(ProcessReaper::killAll, "launcher-process-reaper"));
  }

  private ProcessReaper() {}

  public static void register(Process process) {
    LIVE.add(process);
  }

  public static void forget(Process process) {
    LIVE.remove(process);
  }

  /** Starts the watchdog for {@code process}; it kills the process if this JVM disappears. */
  public static Process watchdog(Process process) {
    long jvm = ProcessHandle.current().pid();
    String script =
        "tail --pid=" + jvm + " -f /dev/null; kill -KILL " + process.pid() + " 2>/dev/null";
    try {
      Process watchdog =
          new ProcessBuilder("sh", "-c", script)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      LIVE.add(watchdog);
      return watchdog;
    } catch (IOException e) {
      process.destroyForcibly();
      throw new UncheckedIOException("could not start the watchdog for pid " + process.pid(), e);
    }
  }

  /** Stops a watchdog and its {@code tail} child; they are processes this JVM started. */
  public static void stopWatchdog(Process watchdog) {
    watchdog.descendants().forEach(ProcessHandle::destroyForcibly);
    watchdog.destroyForcibly();
    try {
      watchdog.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    LIVE.remove(watchdog);
  }

  private static void killAll() {
    for (Process process : LIVE) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
  }
}
