package dev.fencepost.experiments.harness;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
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
 * A lock server process this scenario owns, on a backend this scenario owns, so that it can be
 * stopped around a backup, a restore or an outage, or SIGKILLed and restarted by the chaos run,
 * without touching the harness's shared one. Its port is fixed for its whole life, so workers keep
 * its URL across restarts (the shared stack's {@link JarProcess} picks a new one on every start).
 *
 * <p>Its port is chosen before the process starts, so workers can be booted (held at their start
 * gate) while it starts, and a start that fails is retried on the same port: on a loaded two-core
 * machine the lock server's 2 s lockdb connection timeout can expire during its own start-up
 * (Liquibase), which says nothing about the scenario. Only this process is ever signalled.
 */
public final class OwnLockServer implements AutoCloseable {

  static final int START_ATTEMPTS = 3;

  /** Every server started in this JVM: a failed scenario must not leave one running. */
  private static final List<OwnLockServer> STARTED = new ArrayList<>();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  synchronized (STARTED) {
                    STARTED.forEach(OwnLockServer::close);
                  }
                },
                "own-lock-servers-stop"));
  }

  private final String name;
  private final Path log;
  private final List<String> args;
  private final int port;
  private Process process;

  private OwnLockServer(String name, Path log, List<String> args, int port) {
    this.name = name;
    this.log = log;
    this.args = args;
    this.port = port;
  }

  /** Starts {@code lock-server-app} with {@code args} and waits until it is healthy. */
  public static OwnLockServer start(String name, Path log, List<String> args) {
    return launch(name, log, args).awaitHealthy();
  }

  /** Starts the process and returns at once; {@link #awaitHealthy()} before workers run. */
  public static OwnLockServer launch(String name, Path log, List<String> args) {
    OwnLockServer server = new OwnLockServer(name, log, List.copyOf(args), JarProcess.freePort());
    synchronized (STARTED) {
      STARTED.add(server);
    }
    server.spawn();
    return server;
  }

  private synchronized void spawn() {
    Path jar = Settings.jar("experiments.lockserver.jar");
    List<String> command = new ArrayList<>();
    command.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    command.addAll(JarProcess.LEAN_JVM);
    command.add("-Xmx192m");
    command.addAll(List.of("-jar", jar.toString(), "--server.port=" + port));
    command.add("--server.address=127.0.0.1");
    command.add("--spring.main.banner-mode=off");
    command.addAll(args);
    try {
      Files.createDirectories(log.getParent());
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Waits until the server answers its health check; a process that exits while starting is started
   * again on the same port, up to {@value #START_ATTEMPTS} times.
   */
  public OwnLockServer awaitHealthy() {
    HttpClient http = HttpClient.newHttpClient();
    for (int attempt = 1; ; attempt++) {
      Awaitility.await(name + " healthy or exited (log " + log + ")")
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofMillis(250))
          .ignoreExceptions()
          .until(() -> !isAlive() || healthy(http));
      if (isAlive()) {
        return this;
      }
      if (attempt == START_ATTEMPTS) {
        throw new IllegalStateException(
            name + " exited " + attempt + " times while starting; " + log);
      }
      spawn();
    }
  }

  private boolean healthy(HttpClient http) throws IOException, InterruptedException {
    return http.send(
                HttpRequest.newBuilder(URI.create(baseUrl() + "/actuator/health"))
                    .timeout(Duration.ofSeconds(2))
                    .GET()
                    .build(),
                HttpResponse.BodyHandlers.discarding())
            .statusCode()
        == 200;
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
    return "http://127.0.0.1:" + port;
  }

  public Path log() {
    return log;
  }

  public synchronized boolean isAlive() {
    return process != null && process.isAlive();
  }

  public synchronized long pid() {
    return process.pid();
  }

  /** SIGKILL of this process only (a crashed lock server: its sessions expire by their TTL). */
  public synchronized void kill() {
    if (isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Starts the process again on the same port after it stopped, and waits until it is healthy. */
  public OwnLockServer restart() {
    synchronized (this) {
      if (isAlive()) {
        throw new IllegalStateException(name + " is still running");
      }
      spawn();
    }
    return awaitHealthy();
  }

  /** The worker argument that points a payout worker at this server. */
  public String workerArg() {
    return "--fencepost.lock.client.base-url=" + baseUrl();
  }

  /** Lines of this server's log that contain {@code text} (structured events by name). */
  public List<String> logLines(String text) {
    try {
      return Files.readAllLines(log).stream().filter(l -> l.contains(text)).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** SIGTERM, a graceful stop (SIGKILL if it hangs): its sessions are closed. Idempotent. */
  @Override
  public synchronized void close() {
    if (!isAlive()) {
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
}
