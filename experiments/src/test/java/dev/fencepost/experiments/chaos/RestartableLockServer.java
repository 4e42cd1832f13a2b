package dev.fencepost.experiments.chaos;

import dev.fencepost.experiments.harness.JarProcess;
import dev.fencepost.experiments.harness.Settings;
import dev.fencepost.testsupport.postgres.PostgresDatabase;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * A lock server (PostgreSQL backend, on the shared lockdb) of the chaos run's own, on a port fixed
 * for its whole life so that it can be SIGKILLed and started again while the workers keep its URL.
 * The shared stack's lock server picks a new free port on every start (JarProcess), which a restart
 * cannot keep; both serve the same lockdb, so grants and the token sequence are one history.
 */
final class RestartableLockServer implements AutoCloseable {

  private final PostgresDatabase lockdb;
  private final Path log;
  private final int port;
  private final HttpClient http = HttpClient.newHttpClient();
  private Process process;
  private int starts;

  RestartableLockServer(PostgresDatabase lockdb, Path log) {
    this.lockdb = lockdb;
    this.log = log;
    this.port = freePort();
  }

  String baseUrl() {
    return "http://127.0.0.1:" + port;
  }

  synchronized long pid() {
    return process.pid();
  }

  synchronized boolean isAlive() {
    return process != null && process.isAlive();
  }

  synchronized int starts() {
    return starts;
  }

  /** Starts the process on the fixed port and waits until it answers its health check. */
  synchronized void start() {
    List<String> command = new ArrayList<>();
    command.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    command.addAll(JarProcess.LEAN_JVM);
    command.add("-Xmx192m");
    command.addAll(
        List.of(
            "-jar",
            Settings.jar("experiments.lockserver.jar").toString(),
            "--server.port=" + port,
            "--server.address=127.0.0.1",
            "--spring.main.banner-mode=off",
            "--spring.datasource.url=" + lockdb.jdbcUrl(),
            "--spring.datasource.username=" + lockdb.username(),
            "--spring.datasource.password=" + lockdb.password()));
    try {
      Files.createDirectories(log.getParent());
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
      starts++;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    awaitHealthy();
  }

  /** SIGKILL of this process only (a crashed lock server: its sessions expire by their TTL). */
  synchronized void kill() {
    if (process != null && process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void awaitHealthy() {
    Process current = process;
    Awaitility.await("chaos lock server healthy on " + port + " (log " + log + ")")
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofMillis(250))
        .ignoreExceptions()
        .until(
            () -> {
              if (!current.isAlive()) {
                throw new IllegalStateException("lock server exited; see " + log);
              }
              return http.send(
                          HttpRequest.newBuilder(URI.create(baseUrl() + "/actuator/health"))
                              .timeout(Duration.ofSeconds(2))
                              .GET()
                              .build(),
                          HttpResponse.BodyHandlers.ofString())
                      .statusCode()
                  == 200;
            });
  }

  @Override
  public synchronized void close() {
    if (process != null && process.isAlive()) {
      process.destroy();
      try {
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          kill();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
