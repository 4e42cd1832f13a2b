package dev.fencepost.experiments.restore;

import dev.fencepost.experiments.harness.JarProcess;
import dev.fencepost.experiments.harness.Settings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;

/**
 * A lock server process this scenario owns, on a backend this scenario owns, so that it can be
 * stopped around a backup, a restore or an outage without touching the harness's shared one. Each
 * start is a new process on a new port; the workers of the next phase are pointed at it.
 */
public final class OwnLockServer implements AutoCloseable {

  private final JarProcess process;

  private OwnLockServer(JarProcess process) {
    this.process = process;
  }

  /** Starts {@code lock-server-app} with {@code args} and waits until it is healthy. */
  public static OwnLockServer start(String name, Path log, List<String> args) {
    JarProcess process =
        JarProcess.start(name, Settings.jar("experiments.lockserver.jar"), "192m", log, args);
    HttpClient http = HttpClient.newHttpClient();
    Awaitility.await(name + " healthy (log " + log + ")")
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofMillis(250))
        .ignoreExceptions()
        .until(
            () -> {
              if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited; see " + log);
              }
              return http.send(
                          HttpRequest.newBuilder(URI.create(process.baseUrl() + "/actuator/health"))
                              .timeout(Duration.ofSeconds(2))
                              .GET()
                              .build(),
                          HttpResponse.BodyHandlers.discarding())
                      .statusCode()
                  == 200;
            });
    return new OwnLockServer(process);
  }

  /** The arguments that put a lock server on a PostgreSQL lockdb. */
  public static List<String> postgres(String jdbcUrl, String username, String password) {
    return List.of(
        "--spring.datasource.url=" + jdbcUrl,
        "--spring.datasource.username=" + username,
        "--spring.datasource.password=" + password);
  }

  /** The arguments that put a lock server on etcd. */
  public static List<String> etcd(String endpoints) {
    return List.of("--fencepost.lock.backend=etcd", "--fencepost.lock.etcd.endpoints=" + endpoints);
  }

  public String baseUrl() {
    return process.baseUrl();
  }

  public Path log() {
    return process.log();
  }

  /** The worker argument that points a payout worker at this server. */
  public String workerArg() {
    return "--fencepost.lock.client.base-url=" + baseUrl();
  }

  /** Lines of this server's log that contain {@code text} (structured events by name). */
  public List<String> logLines(String text) {
    try {
      return Files.readAllLines(process.log()).stream().filter(l -> l.contains(text)).toList();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** SIGTERM, a graceful stop: its sessions are closed, nothing is left half-written. */
  @Override
  public void close() {
    process.close();
  }

  /** SIGKILL (a failed scenario's clean-up). */
  public void destroy() {
    process.destroyForcibly();
  }
}
