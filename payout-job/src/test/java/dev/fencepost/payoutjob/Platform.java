package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.batch.LaunchParameters;
import dev.fencepost.launcher.LocalPlatform;
import dev.fencepost.launcher.PayoutWorkerArgs;
import dev.fencepost.launcher.RailStubAdmin;
import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.PaymentResource;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutId;
import dev.fencepost.payment.testkit.PaydbFixtures;
import dev.fencepost.payoutjob.PayoutFailpoint.Point;
import dev.fencepost.security.BearerTokenSource;
import dev.fencepost.security.FencepostRole;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.JobExecution;
import org.springframework.batch.core.job.parameters.JobParameters;
import org.springframework.batch.core.launch.JobOperator;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The real parts a payout needs: the launcher's local platform on this JVM's shared embedded
 * PostgreSQL (lockdb, paydb, proxydb, batchdb), with the lock server, the rail stub and the rail
 * proxy each its own process from its runnable jar, as operators run them; and payout-job workers
 * in this JVM, each a separate application context with its own lock session (as separate pods
 * would have), so that a test can register failpoints and listeners in them. Started once per test
 * JVM; tests keep apart by using accounts of their own and asserting on their own payouts.
 */
final class Platform {

  private static final Duration SERVICE_START = Duration.ofMinutes(3);

  private static Platform shared;

  final LocalPlatform services;
  final RailStubAdmin rail;
  final PaymentResource payments;
  final PaydbFixtures fixtures;
  private final HttpClient http;

  static synchronized Platform shared() {
    if (shared == null) {
      shared = new Platform();
      Runtime.getRuntime().addShutdownHook(new Thread(shared.services::close));
    }
    return shared;
  }

  private Platform() {
    services =
        LocalPlatform.builder(Path.of("target", "platform-" + ProcessHandle.current().pid()))
            .postgres(EmbeddedPostgresServer.shared())
            .startTimeout(SERVICE_START)
            // A rail hang (TIMEOUT_* faults) outlasts the proxy's timeout towards the rail, so
            // the proxy answers TIMEOUT (UC-05) long before the worker's own timeout. Both leave
            // room for a busy shared machine: an ordinary payment answered after the timeout
            // would turn ambiguous, and a hang answered before it would not be a timeout.
            .railTimeout("3s")
            .railStubArgs(List.of("--fencepost.stub.hang=8s"))
            .lockServerArgs(List.of("--spring.datasource.hikari.maximum-pool-size=6"))
            .start();
    // After the platform: its services serve HTTPS, and this client trusts its CA (ADR 0150).
    http = HttpClient.newBuilder().sslContext(services.tls().sslContext()).build();
    rail = services.railStubAdmin();
    payments = new PaymentResource(services.paydb().dataSource(), new SimpleMeterRegistry());
    fixtures = new PaydbFixtures(services.paydb().dataSource(), "payout-job-tests");
  }

  /** The lock server's process: a test may stop it and start it again on the same port. */
  JavaProcess lockServer() {
    return services.lockServer();
  }

  /** Starts the stopped lock server again on its port and waits until it answers. */
  void restartLockServer() {
    lockServer().restart().awaitHealthy(SERVICE_START, 3);
  }

  String lockUrl() {
    return lockServer().baseUrl();
  }

  /** Tokens of a platform workload, for calls a test makes itself (an operator's revoke). */
  BearerTokenSource tokens(FencepostRole role) {
    return services.tokens(role);
  }

  /** A payout-job application with the job not started; {@code extraArgs} override defaults. */
  ConfigurableApplicationContext worker(String... extraArgs) {
    return worker(context -> {}, extraArgs);
  }

  /** The same, with beans registered before refresh (e.g. a test {@link PayoutFailpoint}). */
  ConfigurableApplicationContext worker(
      Consumer<GenericApplicationContext> beforeRefresh, String... extraArgs) {
    PayoutWorkerArgs args =
        services
            .workerArgs("worker-" + UUID.randomUUID().toString().substring(0, 8))
            .set("spring.application.name", "payout-job")
            .set("spring.batch.job.enabled", "false")
            .set("server.address", "127.0.0.1")
            .plainLogs();
    // In this JVM, so its identity goes in as properties: no command line to leak from.
    services.identity().clientProperties(FencepostRole.PAYOUT_WORKER).forEach(args::set);
    for (String extra : extraArgs) {
      args.set(extra);
    }
    return PayoutJobApplication.application()
        .initializers(context -> beforeRefresh.accept((GenericApplicationContext) context))
        .run(args.toArgs().toArray(String[]::new));
  }

  /** The same, with {@code failpoint} as the worker's {@link PayoutFailpoint} bean. */
  ConfigurableApplicationContext workerWithFailpoint(
      PayoutFailpoint failpoint, String... extraArgs) {
    return worker(
        context -> context.registerBean("payoutFailpoint", PayoutFailpoint.class, () -> failpoint),
        extraArgs);
  }

  /** Thrown by {@link #crashAt}'s failpoint: the worker's flow ends here. */
  static final class WorkerDied extends Error {
    WorkerDied(Point point) {
      super("worker stopped at " + point);
    }
  }

  /**
   * A worker of its own executes {@code payout} and dies when it reaches {@code point}, as a crash
   * would; its application is then closed, which ends its lock session (UC-04).
   */
  void crashAt(Point point, Payout payout) {
    ConfigurableApplicationContext doomed =
        workerWithFailpoint(
            new PayoutFailpoint() {
              @Override
              public void reached(Point reached, Payout p) {
                if (reached == point) {
                  throw new WorkerDied(point);
                }
              }

              @Override
              public boolean stepsThroughSettlement() {
                return point.passedBySettlement();
              }
            });
    try {
      assertThatThrownBy(() -> doomed.getBean(PayoutExecutor.class).execute(payout))
          .isInstanceOf(WorkerDied.class);
    } finally {
      doomed.close();
    }
  }

  /** One run of payoutJob in {@code worker}, on the calling thread, to its end. */
  static JobExecution run(ConfigurableApplicationContext worker) throws Exception {
    return worker
        .getBean(JobOperator.class)
        .start(
            worker.getBean("payoutJob", Job.class), LaunchParameters.unique(new JobParameters()));
  }

  /** A funded account of this test's own with {@code count} PENDING payouts of {@code amount}. */
  List<Payout> accountWithPayouts(String prefix, long funding, int count, long amount) {
    AccountId account = AccountId.of(prefix + "-" + UUID.randomUUID().toString().substring(0, 8));
    fixtures.createAccount(account, funding);
    List<Payout> payouts = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      payouts.add(fixtures.createPendingPayout(account, amount, "EUR", "ben-" + i));
    }
    return payouts;
  }

  Payout reload(Payout payout) {
    return payments.findPayout(payout.id()).orElseThrow();
  }

  /** Every movement the rail received for this payout: the ground truth (FR-21). */
  int movements(PayoutId payout) {
    return rail.movementsOf(payout.clientReference());
  }

  /** Rows in the proxy's submission table for this payout (at most one, FR-18). */
  long submissions(PayoutId payout) {
    return JdbcClient.create(services.proxydb().dataSource())
        .sql("SELECT count(*) FROM rail_submission WHERE payout_id = ?")
        .param(payout.toString())
        .query(Long.class)
        .single();
  }

  /** Makes the rail behave as {@code modes} says for these client references; others settle. */
  void railFaults(Map<String, String> modesByClientReference) {
    rail.faults(modesByClientReference);
  }

  void resetRailFaults() {
    rail.resetFaults();
  }

  /** GET as an operator (the management endpoints are an operator's). */
  String get(String url) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", "Bearer " + tokens(FencepostRole.OPERATOR).currentToken())
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }
}
