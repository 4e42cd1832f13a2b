package dev.fencepost.launcher;

import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.security.FencepostRole;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * What the operator console needs beside a {@link LocalPlatform} (docs/console.md): the two jobs as
 * long-running processes that launch on request and serve their operator endpoints ({@code
 * batchjobs}, reconciliation's {@code payoutops}), a database role that reads and never writes (ADR
 * 0186), and the console's settings. The console itself is started as its own process ({@link
 * #startConsole}) by {@code ./fencepost run --keep-running}, or inside a test's JVM from {@link
 * #consoleProperties()}.
 */
public final class OperatorConsoleStack implements AutoCloseable {

  /** Where the issuer sends a signed-in person back to: Spring Security's OAuth2 login. */
  public static final String REDIRECT_PATH = "/login/oauth2/code/fencepost";

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final LocalPlatform platform;
  private final JavaProcess reconciliation;
  private final JavaProcess payoutJob;
  private final PostgresDatabase.Credentials reader;
  private final String prometheusUrl;
  private JavaProcess console;

  private OperatorConsoleStack(
      LocalPlatform platform,
      JavaProcess reconciliation,
      JavaProcess payoutJob,
      PostgresDatabase.Credentials reader,
      String prometheusUrl) {
    this.platform = platform;
    this.reconciliation = reconciliation;
    this.payoutJob = payoutJob;
    this.reader = reader;
    this.prometheusUrl = prometheusUrl;
  }

  /**
   * Starts reconciliation-job and payout-job as long-running processes (neither runs its job at
   * start; both launch through {@code POST /actuator/batchjobs/{job}}) and returns once both are
   * healthy. {@code prometheusUrl} may be null: the console then says alerts are not configured.
   */
  public static OperatorConsoleStack start(
      LocalPlatform platform, Duration startTimeout, String prometheusUrl) {
    PostgresDatabase paydb = platform.paydb();
    List<String> reconciliationArgs =
        new ArrayList<>(LocalPlatform.postgresArgs(platform.batchdb()));
    reconciliationArgs.add("--spring.batch.job.enabled=false");
    reconciliationArgs.add("--fencepost.paydb.url=" + paydb.jdbcUrl());
    reconciliationArgs.add("--fencepost.paydb.username=" + paydb.runtime().username());
    reconciliationArgs.add("--fencepost.paydb.password=" + paydb.runtime().password());
    reconciliationArgs.add(
        "--fencepost.reconciliation.proxy-base-url=" + platform.railProxy().baseUrl());
    reconciliationArgs.add(
        "--fencepost.reconciliation.rail-statement-url=" + platform.railStub().baseUrl());
    reconciliationArgs.add("--fencepost.reconciliation.settlement-window=3s");
    reconciliationArgs.add("--fencepost.lock.client.base-url=" + platform.lockServer().baseUrl());
    reconciliationArgs.add("--fencepost.lock.client.owner=local-reconciliation");
    JavaProcess reconciliation =
        LocalIdentity.withEnvironment(
                App.RECONCILIATION_JOB.process(
                    "reconciliation", platform.workDir().resolve("reconciliation.log")),
                platform.identity().clientEnvironment(FencepostRole.RECONCILER))
            .environment(platform.storeEnvironment())
            .httpPort(0)
            .args(reconciliationArgs)
            .start();
    JavaProcess payoutJob;
    try {
      PayoutWorkerArgs payoutArgs =
          platform
              .workerArgs("payout-job")
              .set("spring.main.web-application-type", "servlet")
              .set("spring.batch.job.enabled", "false");
      payoutJob =
          LocalIdentity.withEnvironment(
                  App.PAYOUT_JOB.process(
                      "payout-job", platform.workDir().resolve("payout-job.log")),
                  platform.identity().clientEnvironment(FencepostRole.PAYOUT_WORKER))
              .environment(platform.storeEnvironment())
              .httpPort(0)
              .args(payoutArgs.toArgs())
              .start();
    } catch (RuntimeException e) {
      reconciliation.kill();
      throw e;
    }
    try {
      reconciliation.awaitHealthy(startTimeout, 3);
      payoutJob.awaitHealthy(startTimeout, 3);
    } catch (RuntimeException e) {
      reconciliation.kill();
      payoutJob.kill();
      throw e;
    }
    PostgresDatabase.Credentials reader = platform.postgres().createReadOnlyRole("console_reader");
    return new OperatorConsoleStack(platform, reconciliation, payoutJob, reader, prometheusUrl);
  }

  public JavaProcess reconciliation() {
    return reconciliation;
  }

  public JavaProcess payoutJob() {
    return payoutJob;
  }

  /** The console's database role: reads every database, writes none (ADR 0186). */
  public PostgresDatabase.Credentials reader() {
    return reader;
  }

  /**
   * Every setting of the console on this platform ({@code fencepost.console.*}, the database
   * connections as {@link #reader()}), but not its ports and TLS: a process gets those from the
   * launcher, a test's context from its own arguments. The reader's password is among them: pass
   * them in an environment or a context, never on a command line.
   */
  public Map<String, String> consoleProperties() {
    Map<String, String> p = new LinkedHashMap<>();
    String c = "fencepost.console.";
    p.put(c + "issuer-url", platform.identity().issuerUrl());
    p.put(c + "lock-server-url", platform.lockServer().baseUrl());
    p.put(c + "lock-server-management-url", platform.lockServer().managementUrl());
    p.put(c + "rail-proxy-management-url", platform.railProxy().managementUrl());
    p.put(c + "rail-stub-url", platform.railStub().baseUrl());
    p.put(c + "reconciliation-management-url", reconciliation.managementUrl());
    p.put(c + "payout-job-management-url", payoutJob.managementUrl());
    if (prometheusUrl != null) {
      p.put(c + "prometheus-url", prometheusUrl);
    }
    database(p, c + "paydb.", platform.paydb());
    database(p, c + "proxydb.", platform.proxydb());
    if (platform.etcd().isEmpty()) {
      // The lock audit is in lockdb only with the PostgreSQL backend; with etcd it is in etcd.
      database(p, c + "lockdb.", platform.lockdb());
    }
    p.put("fencepost.db.tls.mode", "verify-full");
    p.put("fencepost.db.tls.root-cert", platform.postgres().caFile().toAbsolutePath().toString());
    return p;
  }

  private void database(Map<String, String> p, String prefix, PostgresDatabase database) {
    p.put(prefix + "url", database.jdbcUrl());
    p.put(prefix + "username", reader.username());
    p.put(prefix + "password", reader.password());
  }

  /**
   * Starts the console as its own process on the platform's console port ({@link
   * LocalPlatform#consoleUrl()}), its settings in {@code SPRING_APPLICATION_JSON}; returns once it
   * is healthy.
   */
  public JavaProcess startConsole(Duration startTimeout) {
    ObjectNode settings = JSON.createObjectNode();
    consoleProperties().forEach(settings::put);
    console =
        App.OPERATOR_CONSOLE
            .process("operator-console", platform.workDir().resolve("operator-console.log"))
            .environment("SPRING_APPLICATION_JSON", JSON.writeValueAsString(settings))
            .httpPort(platform.consolePort())
            .start();
    console.awaitHealthy(startTimeout, 3);
    return console;
  }

  @Override
  public void close() {
    if (console != null) {
      console.close();
    }
    payoutJob.close();
    reconciliation.close();
  }
}
