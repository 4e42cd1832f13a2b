package dev.fencepost.launcher.etcd;

import dev.fencepost.launcher.DataDirectories;
import dev.fencepost.launcher.process.ProcessReaper;
import dev.fencepost.launcher.process.Signals;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One real etcd process of an {@link EtcdCluster}, on fixed loopback ports and a data directory
 * that survive {@link #kill()} and {@link #restart()}, so a restarted member rejoins as the same
 * member with its own log.
 *
 * <p>Fault operations signal only the process this object started: {@link #kill()} is SIGKILL (no
 * chance to flush or say goodbye, like a node failure), {@link #pause()} and {@link #resume()} are
 * SIGSTOP and SIGCONT (a stop-the-world pause: the member keeps its sockets but answers nothing).
 */
public final class EtcdMember {

  private final EtcdCluster cluster;
  private final String name;
  private final int clientPort;
  private final int peerPort;
  private final Path dataDirectory;
  private final Path logFile;
  private final String scheme;
  private Process process;
  private Process watchdog;
  private boolean paused;
  private int starts;

  EtcdMember(
      EtcdCluster cluster,
      String name,
      int clientPort,
      int peerPort,
      Path dataDirectory,
      Path logFile,
      boolean tls) {
    this.cluster = cluster;
    this.scheme = tls ? "https" : "http";
    this.name = name;
    this.clientPort = clientPort;
    this.peerPort = peerPort;
    this.dataDirectory = dataDirectory;
    this.logFile = logFile;
  }

  /** The member's name in the cluster, for example {@code m0}. */
  public String name() {
    return name;
  }

  /**
   * The client URL, {@code http://127.0.0.1:<port>}, or {@code https://} when the cluster runs TLS.
   */
  public String clientUrl() {
    return scheme + "://127.0.0.1:" + clientPort;
  }

  /** The peer URL other members replicate through ({@code https://} when the cluster runs TLS). */
  public String peerUrl() {
    return scheme + "://127.0.0.1:" + peerPort;
  }

  public int clientPort() {
    return clientPort;
  }

  public Path dataDirectory() {
    return dataDirectory;
  }

  /** Where the member's stdout and stderr go; kept across restarts, deleted with the cluster. */
  public Path logFile() {
    return logFile;
  }

  /** The operating-system process id of the running process, if any. */
  public synchronized Optional<Long> pid() {
    return process != null && process.isAlive() ? Optional.of(process.pid()) : Optional.empty();
  }

  /** True while the process this object started is alive (paused counts as alive). */
  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  public synchronized boolean isPaused() {
    return paused && isRunning();
  }

  /** Starts the process; a no-op while it runs. Returns without waiting for it to serve. */
  synchronized void start(List<String> clusterFlags) {
    if (isRunning()) {
      return;
    }
    List<String> command = new ArrayList<>();
    command.add(EtcdBinary.locate().toString());
    command.addAll(
        List.of(
            "--name=" + name,
            "--data-dir=" + dataDirectory,
            "--listen-client-urls=" + clientUrl(),
            "--advertise-client-urls=" + clientUrl(),
            "--listen-peer-urls=" + peerUrl(),
            "--initial-advertise-peer-urls=" + peerUrl()));
    command.addAll(clusterFlags);
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start etcd member " + name, e);
    }
    paused = false;
    starts++;
    ProcessReaper.register(process);
    watchdog = ProcessReaper.watchdog(process);
  }

  /** How many times this member's process has been started. */
  public synchronized int starts() {
    return starts;
  }

  /**
   * SIGKILL: the process dies at once without flushing anything beyond what etcd already fsynced.
   * Waits until the operating system has reaped it, so its ports are free for {@link #restart()}.
   */
  public synchronized void kill() {
    if (process == null) {
      return;
    }
    Process victim = process;
    // A stopped process still dies from SIGKILL; no SIGCONT needed.
    victim.destroyForcibly();
    awaitExit(victim);
    ProcessReaper.forget(victim);
    stopWatchdog();
    process = null;
    paused = false;
  }

  /** SIGSTOP: the member freezes with its sockets open, like a long GC pause or VM migration. */
  public synchronized void pause() {
    signal("STOP");
    paused = true;
  }

  /** SIGCONT: a paused member carries on as if no time had passed. */
  public synchronized void resume() {
    signal("CONT");
    paused = false;
  }

  /**
   * Starts the member again on the same ports and data directory (after {@link #kill()}); it
   * rejoins the cluster with everything it had persisted. Waits until it answers.
   */
  public void restart() {
    synchronized (this) {
      if (isRunning()) {
        throw new IllegalStateException(name + " is still running; kill it first");
      }
    }
    cluster.startMember(this);
    cluster.awaitServing(this, cluster.startTimeout());
  }

  /**
   * Copies the data directory to {@code target}, like a volume snapshot taken of a stopped member:
   * a backup whose later restore rewinds the member to this moment. The member must not run.
   */
  public synchronized void copyDataDirectoryTo(Path target) {
    requireStopped("copy its data directory");
    DataDirectories.copy(dataDirectory, target);
  }

  /**
   * Replaces the data directory with {@code backup} (from {@link #copyDataDirectoryTo}), as an
   * operator restoring a backup would; {@link #restart()} then serves the restored state. The
   * member must not run.
   */
  public synchronized void restoreDataDirectoryFrom(Path backup) {
    requireStopped("restore its data directory");
    DataDirectories.delete(dataDirectory);
    DataDirectories.copy(backup, dataDirectory);
  }

  private void requireStopped(String action) {
    if (isRunning()) {
      throw new IllegalStateException(name + " must be killed before you " + action);
    }
  }

  /** Kills the process if it runs; leaves the data directory for the cluster to delete. */
  synchronized void stop() {
    if (paused && process != null && process.isAlive()) {
      // Only the process we started; a SIGKILL would do too, but keep the log readable.
      signal("CONT");
    }
    kill();
  }

  private void signal(String signal) {
    if (process == null || !process.isAlive()) {
      throw new IllegalStateException(name + " is not running");
    }
    Signals.send(signal, process.pid());
  }

  private void stopWatchdog() {
    if (watchdog != null) {
      ProcessReaper.stopWatchdog(watchdog);
      watchdog = null;
    }
  }

  private void awaitExit(Process victim) {
    try {
      if (!victim.waitFor(Duration.ofSeconds(30).toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException("etcd member " + name + " did not die from SIGKILL");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while killing " + name, e);
    }
  }

  @Override
  public String toString() {
    return name + "(" + clientUrl() + ")";
  }
}
