package dev.fencepost.experiments.harness;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A runnable jar started by this harness as its own process, with its PID (test-support's {@code
 * ExecJar} hides it, and the experiments signal by PID). Only processes started here are ever
 * signalled, and only through {@code kill -<SIG> <pid>} on their own PID.
 */
public final class JarProcess implements AutoCloseable {

  /** Lean flags: workers are short-lived JVMs on a 2-core machine. */
  public static final List<String> LEAN_JVM =
      List.of(
          "-XX:TieredStopAtLevel=1",
          "-Xshare:auto",
          "-XX:+UseSerialGC",
          "-Xss512k",
          "-XX:CICompilerCount=1");

  private final String name;
  private final Process process;
  private final int port;
  private final Path log;

  private JarProcess(String name, Process process, int port, Path log) {
    this.name = name;
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /**
   * Starts {@code java <lean flags> -Xmx<heap> -jar jar --server.port=<free> args...}, its output
   * to {@code log}.
   */
  public static JarProcess start(String name, Path jar, String heap, Path log, List<String> args) {
    if (!Files.exists(jar)) {
      throw new IllegalStateException("no runnable jar at " + jar + ": run the package phase");
    }
    try {
      Files.createDirectories(log.getParent());
      int port = freePort();
      List<String> command = new ArrayList<>();
      command.add(
          System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
      command.addAll(LEAN_JVM);
      command.add("-Xmx" + heap);
      command.addAll(List.of("-jar", jar.toString(), "--server.port=" + port));
      command.add("--server.address=127.0.0.1");
      command.add("--spring.main.banner-mode=off");
      command.addAll(args);
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
      return new JarProcess(name, process, port, log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String name() {
    return name;
  }

  public long pid() {
    return process.pid();
  }

  public int port() {
    return port;
  }

  public String baseUrl() {
    return "http://127.0.0.1:" + port;
  }

  public Path log() {
    return log;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** Sends {@code signal} (STOP, CONT, KILL, TERM) to this process, and to no other. */
  public void signal(String signal) {
    if (!process.isAlive()) {
      throw new IllegalStateException(name + " (pid " + pid() + ") is not running");
    }
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + signal, Long.toString(pid()))
              .redirectErrorStream(true)
              .start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException(
            "kill -"
                + signal
                + " "
                + pid()
                + " failed: "
                + new String(kill.getInputStream().readAllBytes()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Waits for the process to end by itself; its exit code. */
  public int awaitExit(Duration atMost) {
    try {
      if (!process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(name + " did not exit within " + atMost + "; log " + log);
      }
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** SIGTERM (a graceful Spring shutdown), then SIGKILL if it hangs. Idempotent. */
  @Override
  public void close() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** SIGKILL through the JDK (a failed scenario's clean-up). */
  public void destroyForcibly() {
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
