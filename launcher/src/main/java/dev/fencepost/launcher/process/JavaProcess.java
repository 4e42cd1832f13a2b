package dev.fencepost.launcher.process;

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
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;

/**
 * A JVM that this launcher started as a child process: an application from its runnable jar, or a
 * main class on a class path. It knows its PID, its log file and, for an HTTP service, the loopback
 * port it was given before it started, so it can be stopped and started again on the same port
 * (clients keep its URL across a restart).
 *
 * <p>Signals go only to this process's own PID ({@code kill -<SIG> <pid>}), never to a name or a
 * group. Every process is registered with {@link ProcessReaper}, so none outlives the JVM that
 * started it, even when that JVM is itself killed.
 *
 * <p>An HTTP service gets two loopback ports: its application port and its management port (Spring
 * Boot's {@code management.server.port}), where health, the metrics scrape and the operator's
 * management endpoints are served ({@link #managementUrl()}).
 */
public final class JavaProcess implements AutoCloseable {

  /**
   * Flags for short-lived JVMs on a small machine: C1 only, serial GC, small stacks. A long-running
   * JVM that should reach peak speed does not use them.
   */
  public static final List<String> LEAN_JVM =
      List.of(
          "-XX:TieredStopAtLevel=1",
          "-Xshare:auto",
          "-XX:+UseSerialGC",
          "-Xss512k",
          "-XX:CICompilerCount=1");

  /** The signals a caller may send. */
  public enum Signal {
    /** Freezes the process, as a stop-the-world pause or a VM migration would. */
    STOP,
    /** Thaws a frozen process. */
    CONT,
    /** Ends the process at once: no shutdown hook runs, as in a crash. */
    KILL,
    /** Asks the process to stop; a Spring application closes gracefully. */
    TERM
  }

  private final String name;
  private final List<String> command;
  private final Map<String, String> environment;
  private final int port;
  private final int managementPort;
  private final Path log;
  private final SSLContext tls;
  private Process process;
  private Process watchdog;

  private JavaProcess(
      String name,
      List<String> command,
      Map<String, String> environment,
      int port,
      int managementPort,
      Path log,
      SSLContext tls) {
    this.name = name;
    this.command = List.copyOf(command);
    this.environment = Map.copyOf(environment);
    this.port = port;
    this.managementPort = managementPort;
    this.log = log;
    this.tls = tls;
  }

  /** A process of {@code java -jar jar}. */
  public static Builder jar(String name, Path jar) {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("no runnable jar at " + jar + ": build it first (package)");
    }
    return new Builder(name, List.of("-jar", jar.toString()));
  }

  /** A process of {@code java -cp classPath mainClass}. */
  public static Builder mainClass(String name, String classPath, String mainClass) {
    return new Builder(name, List.of("-cp", classPath, mainClass));
  }

  /**
   * A free TCP port on the loopback interface, for a service to be started on, and none that this
   * JVM has handed out among its last {@value #REMEMBERED_PORTS}.
   *
   * <p>The port is free when it is picked and is bound only when its service starts, seconds later
   * and often beside other services starting. The kernel picks a free port at random, so it can
   * pick the same one again in between: 2,000 picks in a row here gave 273 ports twice, and a local
   * platform picks a dozen. A lock server's management port and the rail stub's port once came out
   * the same, and the lock server, restarted on its port, failed three times.
   */
  public static int freeLoopbackPort() {
    while (true) {
      int port;
      try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        socket.setReuseAddress(true);
        port = socket.getLocalPort();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      synchronized (HANDED_OUT) {
        if (HANDED_OUT.add(port)) {
          if (HANDED_OUT.size() > REMEMBERED_PORTS) {
            HANDED_OUT.remove(HANDED_OUT.iterator().next());
          }
          return port;
        }
      }
    }
  }

  /**
   * How many handed-out ports are not handed out again: a quarter of the kernel's usual ephemeral
   * range (32768 to 60999). A port handed out longer ago is bound by its service by now, or was
   * given up.
   */
  static final int REMEMBERED_PORTS = 7_000;

  private static final LinkedHashSet<Integer> HANDED_OUT = new LinkedHashSet<>();

  private synchronized JavaProcess spawn() {
    try {
      Files.createDirectories(log.toAbsolutePath().getParent());
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      builder.environment().putAll(environment);
      process = builder.start();
      ProcessReaper.register(process);
      watchdog = ProcessReaper.watchdog(process);
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + name, e);
    }
  }

  public String name() {
    return name;
  }

  public synchronized long pid() {
    return process.pid();
  }

  /** The HTTP port it was started on; 0 for a process that serves no HTTP. */
  public int port() {
    return port;
  }

  /**
   * {@code https://127.0.0.1:<port>} for a service started with {@link Builder#tls(TlsSettings)},
   * {@code http://127.0.0.1:<port>} otherwise.
   */
  public String baseUrl() {
    if (port == 0) {
      throw new IllegalStateException(name + " was started without an HTTP port");
    }
    return (tls != null ? "https" : "http") + "://127.0.0.1:" + port;
  }

  /** The management port it was started on; 0 for a process that serves no HTTP. */
  public int managementPort() {
    return managementPort;
  }

  /**
   * {@code https://127.0.0.1:<management port>} (or {@code http://} without TLS): where its {@code
   * /actuator/*} endpoints are, health and the scrape open, the rest for operators.
   */
  public String managementUrl() {
    if (managementPort == 0) {
      throw new IllegalStateException(name + " was started without an HTTP port");
    }
    return (tls != null ? "https" : "http") + "://127.0.0.1:" + managementPort;
  }

  /** Whether it serves HTTPS. */
  public boolean servesTls() {
    return tls != null && port != 0;
  }

  public Path log() {
    return log;
  }

  public synchronized boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** Sends {@code signal} to this process, and to no other. */
  public void signal(Signal signal) {
    long pid;
    synchronized (this) {
      if (!isAlive()) {
        throw new IllegalStateException(name + " is not running");
      }
      pid = process.pid();
    }
    Signals.send(signal.name(), pid);
  }

  /** SIGSTOP: the process is frozen until {@link #resume()}. */
  public void pause() {
    signal(Signal.STOP);
  }

  /** SIGCONT. */
  public void resume() {
    signal(Signal.CONT);
  }

  /**
   * SIGKILL, and waits until the process is gone (a crash: no hook runs); then stops its watchdog,
   * which would otherwise signal the dead process's PID, possibly reused by then, when this JVM
   * exits. Idempotent.
   */
  public synchronized void kill() {
    if (process == null) {
      return;
    }
    process.destroyForcibly();
    if (waitGone(Duration.ofSeconds(30))) {
      stopWatchdog();
    }
  }

  /** Waits for the process to end by itself; its exit code. */
  public int awaitExit(Duration atMost) {
    Process current;
    synchronized (this) {
      current = process;
    }
    try {
      if (!current.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(name + " did not exit within " + atMost + "; log " + log);
      }
      return current.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Its exit code once it has ended. */
  public synchronized int exitValue() {
    return process.exitValue();
  }

  /** Starts the same command again (same port, same log, appended) after the process ended. */
  public JavaProcess restart() {
    synchronized (this) {
      if (isAlive()) {
        throw new IllegalStateException(name + " is still running");
      }
      stopWatchdog();
      return spawn();
    }
  }

  /**
   * Waits until {@code GET /actuator/health} on its management port answers 200. Fails at once,
   * naming the log, when the process exits first.
   */
  public JavaProcess awaitHealthy(Duration atMost) {
    if (!awaitHealthyOrExited(atMost)) {
      throw new IllegalStateException(name + " exited while starting; see " + log);
    }
    return this;
  }

  /**
   * Like {@link #awaitHealthy(Duration)}, but a process that exits while starting is started again
   * on the same port, up to {@code attempts} times. On a loaded machine a service's own start-up
   * can outlast a connection timeout towards its store, which says nothing about what is being
   * tested.
   */
  public JavaProcess awaitHealthy(Duration atMost, int attempts) {
    for (int attempt = 1; ; attempt++) {
      if (awaitHealthyOrExited(atMost)) {
        return this;
      }
      if (attempt >= attempts) {
        throw new IllegalStateException(
            name + " exited " + attempt + " times while starting; see " + log);
      }
      restart();
    }
  }

  private boolean awaitHealthyOrExited(Duration atMost) {
    HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2));
    if (tls != null) {
      // Verifies the service's certificate against the run's CA, host name included.
      client.sslContext(tls);
    }
    HttpClient http = client.build();
    HttpRequest health =
        HttpRequest.newBuilder(URI.create(managementUrl() + "/actuator/health"))
            .timeout(Duration.ofSeconds(2))
            .GET()
            .build();
    long deadline = System.nanoTime() + atMost.toNanos();
    while (true) {
      if (!isAlive()) {
        return false;
      }
      try {
        if (http.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return true;
        }
      } catch (IOException e) {
        // Not listening yet.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            name + " not healthy within " + atMost + " (still running); see " + log);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  /** The lines of its log so far that contain {@code text} (structured events by name). */
  public List<String> logLines(String text) {
    try {
      return Files.readAllLines(log).stream().filter(l -> l.contains(text)).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * SIGTERM (a graceful Spring shutdown: sessions closed, locks released), then SIGKILL if it has
   * not ended within 30 s. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (process == null) {
      return;
    }
    if (process.isAlive()) {
      process.destroy();
      if (!waitGone(Duration.ofSeconds(30))) {
        process.destroyForcibly();
        waitGone(Duration.ofSeconds(10));
      }
    }
    stopWatchdog();
  }

  private boolean waitGone(Duration atMost) {
    try {
      boolean gone = process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS);
      if (gone) {
        ProcessReaper.forget(process);
      }
      return gone;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void stopWatchdog() {
    if (watchdog != null) {
      ProcessReaper.stopWatchdog(watchdog);
      watchdog = null;
    }
  }

  @Override
  public String toString() {
    return name + (process == null ? "" : " (pid " + process.pid() + ")");
  }

  /**
   * What a process needs for TLS (the launcher's {@code LocalTls} provides it): the JVM flags that
   * make it trust the run's CA, the arguments that make a service serve HTTPS, and the SSL context
   * this JVM checks it with.
   */
  public interface TlsSettings {

    List<String> trustJvmArgs();

    List<String> serverArgs();

    SSLContext sslContext();
  }

  /** What to start. */
  public static final class Builder {

    private final String name;
    private final List<String> target;
    private final List<String> jvmArgs = new ArrayList<>();
    private final List<String> args = new ArrayList<>();
    private final Map<String, String> environment = new LinkedHashMap<>();
    private String heap = "256m";
    private int port;
    private int managementPort;
    private Path log;
    private TlsSettings tls;

    private Builder(String name, List<String> target) {
      this.name = Objects.requireNonNull(name);
      this.target = target;
    }

    /** {@link #LEAN_JVM}'s flags. */
    public Builder leanJvm() {
      jvmArgs.addAll(LEAN_JVM);
      return this;
    }

    /**
     * Drops {@link #LEAN_JVM}'s flags again: the JVM's own defaults (tiered compilation up to the
     * optimising compiler, the collector it picks for the machine), as the images run it.
     */
    public Builder productionJvm() {
      jvmArgs.removeAll(LEAN_JVM);
      return this;
    }

    /** Maximum heap, e.g. {@code 192m}. */
    public Builder heap(String heap) {
      this.heap = heap;
      return this;
    }

    public Builder jvmArgs(List<String> more) {
      jvmArgs.addAll(more);
      return this;
    }

    public Builder args(List<String> more) {
      args.addAll(more);
      return this;
    }

    public Builder arg(String arg) {
      args.add(arg);
      return this;
    }

    public Builder environment(String key, String value) {
      environment.put(key, value);
      return this;
    }

    public Builder environment(Map<String, String> more) {
      environment.putAll(more);
      return this;
    }

    /**
     * A Spring Boot service on this loopback port ({@code --server.port}, {@code
     * --server.address=127.0.0.1}), with its management endpoints on a free loopback port of their
     * own ({@code --management.server.port}); 0 picks a free application port now, before the
     * process starts.
     */
    public Builder httpPort(int port) {
      this.port = port == 0 ? freeLoopbackPort() : port;
      int management = freeLoopbackPort();
      while (management == this.port) {
        management = freeLoopbackPort();
      }
      this.managementPort = management;
      return this;
    }

    /**
     * TLS: the process trusts the run's CA and, with an {@link #httpPort(int)}, serves HTTPS only
     * (its {@link JavaProcess#baseUrl()} is {@code https://}).
     */
    public Builder tls(TlsSettings tls) {
      this.tls = tls;
      return this;
    }

    /** Where its standard output and error go (appended across restarts). */
    public Builder log(Path log) {
      this.log = log;
      return this;
    }

    /** Starts the process; it is not necessarily ready yet. */
    public JavaProcess start() {
      List<String> command = new ArrayList<>();
      command.add(
          System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
      command.addAll(jvmArgs);
      if (tls != null) {
        command.addAll(tls.trustJvmArgs());
      }
      command.add("-Xmx" + heap);
      command.addAll(target);
      if (port != 0) {
        command.add("--server.port=" + port);
        command.add("--server.address=127.0.0.1");
        command.add("--management.server.port=" + managementPort);
        command.add("--management.server.address=127.0.0.1");
        if (tls != null) {
          command.addAll(tls.serverArgs());
        }
      }
      command.addAll(args);
      Path output = log;
      if (output == null) {
        try {
          output = Files.createTempFile(name + "-", ".log");
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      return new JavaProcess(
              name,
              command,
              environment,
              port,
              managementPort,
              output,
              tls == null ? null : tls.sslContext())
          .spawn();
    }
  }
}
