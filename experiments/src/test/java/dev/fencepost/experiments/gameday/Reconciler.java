package dev.fencepost.experiments.gameday;

import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.LockBackend;
import dev.fencepost.experiments.harness.LockServers;
import dev.fencepost.launcher.App;
import dev.fencepost.launcher.LocalIdentity;
import dev.fencepost.launcher.LocalPlatform;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.http.TestHttp;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A long-running reconciliation instance for one run's paydb (nothing runs until an operator
 * launches the job on its management port, as the reconciliation runbooks do), with its own job
 * repository so that its runs never meet another scenario's.
 */
final class Reconciler implements AutoCloseable {

  static final String LAUNCH = "/actuator/batchjobs/reconciliationJob";

  private final JavaProcess process;

  private Reconciler(JavaProcess process) {
    this.process = process;
  }

  /**
   * Starts one for {@code run}'s paydb, the shared proxy and the rail stub; {@code extraArgs}
   * ({@code --name=value}) replace the defaults of their names.
   */
  static Reconciler start(ExperimentRun run, List<String> extraArgs) {
    PostgresDatabase batchdb =
        LocalPlatform.createBatchdb(run.stack().postgres(), run.paydb().name() + "_recbatch");
    PostgresDatabase paydb = run.paydb();
    List<String> args = new ArrayList<>(LocalPlatform.postgresArgs(batchdb));
    args.add("--fencepost.paydb.url=" + paydb.jdbcUrl());
    args.add("--fencepost.paydb.username=" + paydb.runtime().username());
    args.add("--fencepost.paydb.password=" + paydb.runtime().password());
    args.add(
        "--fencepost.reconciliation.proxy-base-url=" + run.stack().proxy(run.guards()).baseUrl());
    args.add("--fencepost.reconciliation.rail-statement-url=" + run.stack().stub().baseUrl());
    args.add(
        "--fencepost.lock.client.base-url="
            + run.stack().lockServer(LockBackend.POSTGRES).baseUrl());
    args.add("--spring.batch.job.enabled=false");
    args.add("--spring.main.banner-mode=off");
    // An extra argument replaces the default of its name: Spring would join two values with a
    // comma.
    for (String extra : extraArgs) {
      int eq = extra.indexOf('=');
      if (eq > 0) {
        String name = extra.substring(0, eq + 1);
        args.removeIf(a -> a.startsWith(name));
      }
    }
    args.addAll(extraArgs);
    JavaProcess process =
        LocalIdentity.withEnvironment(
                App.RECONCILIATION_JOB.process(
                    "reconciliation-" + run.scenario(),
                    run.dir().resolve("logs").resolve("reconciliation.log")),
                LockServers.identity().clientEnvironment(FencepostRole.RECONCILER))
            .httpPort(0)
            .args(args)
            .start()
            .awaitHealthy(Duration.ofMinutes(3));
    return new Reconciler(process);
  }

  JavaProcess process() {
    return process;
  }

  /** Launches a run as the operator, with these job parameters ({@code ""}: the default window). */
  HttpResponse<String> launch(String parameters) {
    TestHttp http =
        new TestHttp(
            HttpClient.newHttpClient(),
            process.managementUrl(),
            Duration.ofSeconds(60),
            request -> LockServers.identity().tokens(FencepostRole.OPERATOR).currentToken());
    String body = parameters.isEmpty() ? "{}" : "{\"parameters\":\"" + parameters + "\"}";
    return TestHttp.unchecked(() -> http.post(LAUNCH, body));
  }

  @Override
  public void close() {
    process.close();
  }
}
