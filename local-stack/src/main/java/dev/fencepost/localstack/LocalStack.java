package dev.fencepost.localstack;

import dev.fencepost.lockserver.LockServerApplication;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresServer;
import dev.fencepost.testsupport.postgres.PostgresDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code ./fencepost run}: an embedded PostgreSQL on loopback with a fresh lockdb, and the lock
 * server on it (port 8081 unless {@code --lock-port=N}). Everything lives until Ctrl-C and leaves
 * nothing behind: the database directory is temporary.
 */
public final class LocalStack implements AutoCloseable {

  private final EmbeddedPostgresServer postgres;
  private final ConfigurableApplicationContext lockServer;
  private final int lockPort;

  private LocalStack(Options options) {
    this.postgres = EmbeddedPostgresServer.startDedicated();
    PostgresDatabase lockdb = postgres.createDatabase("lockdb");
    List<String> args = new ArrayList<>();
    args.add("--server.port=" + options.lockPort());
    args.add("--server.address=127.0.0.1");
    args.add("--spring.datasource.url=" + lockdb.jdbcUrl());
    args.add("--spring.datasource.username=" + lockdb.username());
    args.add("--spring.datasource.password=" + lockdb.password());
    args.add("--spring.application.name=lock-server");
    if (!options.jsonLogs()) {
      args.add("--logging.structured.format.console=");
    }
    this.lockServer =
        new SpringApplicationBuilder(LockServerApplication.class).run(args.toArray(String[]::new));
    this.lockPort = ((WebServerApplicationContext) lockServer).getWebServer().getPort();
  }

  /** Starts the stack; the caller closes it. */
  public static LocalStack start(Options options) {
    return new LocalStack(options);
  }

  public String lockServerUrl() {
    return "http://127.0.0.1:" + lockPort;
  }

  public int postgresPort() {
    return postgres.port();
  }

  @Override
  public void close() {
    lockServer.close();
    postgres.close();
  }

  /**
   * Command-line options.
   *
   * @param lockPort the lock server's port (0: any free port)
   * @param jsonLogs whether to print the structured JSON logs production uses
   */
  public record Options(int lockPort, boolean jsonLogs) {

    static Options parse(String[] args) {
      int lockPort = 8081;
      boolean json = false;
      for (String arg : args) {
        if (arg.startsWith("--lock-port=")) {
          lockPort = Integer.parseInt(arg.substring("--lock-port=".length()));
        } else if (arg.equals("--json-logs")) {
          json = true;
        } else if (arg.equals("--help") || arg.equals("-h")) {
          System.out.println(
              "usage: ./fencepost run [--lock-port=8081] [--json-logs]\n"
                  + "Starts embedded PostgreSQL and the lock server on it, until Ctrl-C.");
          System.exit(0);
        } else {
          System.err.println("unknown option " + arg + " (try --help)");
          System.exit(2);
        }
      }
      return new Options(lockPort, json);
    }
  }

  public static void main(String[] args) throws InterruptedException {
    Options options = Options.parse(args);
    LocalStack stack = start(options);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  stack.close();
                  stopped.countDown();
                },
                "local-stack-stop"));
    String url = stack.lockServerUrl();
    System.out.printf(
        """

        Fencepost local stack is up.
          lock server   %s   (backend: postgres, embedded on port %d)
          metrics       %s/actuator/prometheus

        Try it:
          S=$(curl -s -XPOST %s/v1/sessions -H 'Content-Type: application/json' \\
                -d '{"owner":"me","ttlMillis":15000}' | sed 's/.*"sessionId":"\\([^"]*\\)".*/\\1/')
          curl -s -XPOST %s/v1/locks/payout:acc-1/acquire -H 'Content-Type: application/json' \\
                -d "{\\"sessionId\\":\\"$S\\",\\"waitMillis\\":0}"
          curl -s %s/v1/locks/payout:acc-1

        Ctrl-C stops everything.
        %n""",
        url, stack.postgresPort(), url, url, url, url);
    stopped.await();
  }
}
