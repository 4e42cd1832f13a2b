package dev.fencepost.launcher.process;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A built {@code -exec.jar} running as its own process, the way operators run it: on a free
 * loopback port, its output captured to a log file the test can read. Closing it stops the process
 * this test started (and only that one).
 */
public final class ExecJar implements AutoCloseable {

  private final Process process;
  private final int port;
  private final Path log;

  private ExecJar(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /**
   * Starts {@code java -Xmx256m -jar jar --server.port=<free> args...}.
   *
   * @param jar the runnable jar, e.g. from a failsafe system property
   * @param args further command-line arguments (Spring properties)
   */
  public static ExecJar start(Path jar, String... args) {
    if (!Files.exists(jar)) {
      throw new IllegalStateException("no runnable jar at " + jar + ": run the package phase");
    }
    try {
      int port = freePort();
      Path log = Files.createTempFile(jar.getFileName().toString().replace(".jar", "-"), ".log");
      List<String> command = new ArrayList<>();
      command.add(
          System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
      command.addAll(List.of("-Xmx256m", "-jar", jar.toString(), "--server.port=" + port));
      command.addAll(List.of(args));
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      return new ExecJar(process, port, log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int port() {
    return port;
  }

  /** Everything the process printed so far. */
  public String output() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The printed lines so far. */
  public List<String> outputLines() {
    return output().lines().toList();
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
