package dev.fencepost.launcher;

import dev.fencepost.launcher.postgres.PostgresDatabase;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line of one payout worker (the payout job's application): where its lock server, rail
 * proxy, paydb and job repository are, and who it is. One place builds it for the local platform,
 * the experiments and the jobs' tests, so a property renamed in the job is renamed once.
 *
 * <p>Arguments are kept by property name: setting one twice replaces it (Spring would join repeated
 * command-line properties with commas).
 */
public final class PayoutWorkerArgs {

  private final Map<String, String> properties = new LinkedHashMap<>();

  private PayoutWorkerArgs() {
    set("spring.main.web-application-type", "none");
    set("spring.main.banner-mode", "off");
  }

  /** A worker that talks to these services and stores. */
  public static PayoutWorkerArgs worker(
      String workerId,
      String lockServerUrl,
      String proxyUrl,
      PostgresDatabase paydb,
      PostgresDatabase batchdb) {
    PayoutWorkerArgs args = new PayoutWorkerArgs();
    args.set("fencepost.payout.worker-id", workerId);
    args.set("fencepost.lock.client.base-url", lockServerUrl);
    args.set("fencepost.payout.proxy.base-url", proxyUrl);
    args.set("fencepost.paydb.url", paydb.jdbcUrl());
    // As the runtime roles (ADR 0160): the caller has migrated both databases as their owners.
    args.set("fencepost.paydb.username", paydb.runtime().username());
    args.set("fencepost.paydb.password", paydb.runtime().password());
    args.set("spring.datasource.url", batchdb.jdbcUrl());
    args.set("spring.datasource.username", batchdb.runtime().username());
    args.set("spring.datasource.password", batchdb.runtime().password());
    args.set("spring.liquibase.enabled", "false");
    return args;
  }

  /** Runs the job once and exits with its exit code (a CronJob's shape). */
  public PayoutWorkerArgs once() {
    properties.remove("spring.batch.job.enabled");
    properties.remove("fencepost.payout.loop.enabled");
    return set("fencepost.payout.exit-when-done", "true");
  }

  /** Runs the job in a loop until stopped (the Deployment's shape). */
  public PayoutWorkerArgs looping(String idlePause) {
    properties.remove("fencepost.payout.exit-when-done");
    set("spring.batch.job.enabled", "false");
    set("fencepost.payout.loop.enabled", "true");
    return set("fencepost.payout.loop.idle-pause", idlePause);
  }

  /** Plain text logs instead of structured JSON (for a person reading a log file). */
  public PayoutWorkerArgs plainLogs() {
    return set("logging.structured.format.console", "");
  }

  /** Any other property of the job; replaces an earlier value. */
  public PayoutWorkerArgs set(String property, Object value) {
    properties.put(property, String.valueOf(value));
    return this;
  }

  /** Parses {@code --name=value} (as a test passes extra arguments) and {@link #set}s it. */
  public PayoutWorkerArgs set(String commandLineArgument) {
    if (!commandLineArgument.startsWith("--") || commandLineArgument.indexOf('=') < 0) {
      throw new IllegalArgumentException("not --name=value: " + commandLineArgument);
    }
    int eq = commandLineArgument.indexOf('=');
    return set(commandLineArgument.substring(2, eq), commandLineArgument.substring(eq + 1));
  }

  /** The value set for {@code property}, or null. */
  public String get(String property) {
    return properties.get(property);
  }

  /** {@code --name=value} for every property, in the order they were first set. */
  public List<String> toArgs() {
    List<String> args = new ArrayList<>();
    properties.forEach((name, value) -> args.add("--" + name + "=" + value));
    return args;
  }
}
