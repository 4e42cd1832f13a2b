package dev.fencepost.payoutjob;

import dev.fencepost.batch.BatchDefaults;
import dev.fencepost.batch.LaunchParameters;
import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.lockserver.LockServerApplication;
import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.PaymentResource;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutId;
import dev.fencepost.payment.testkit.PaydbFixtures;
import dev.fencepost.railproxy.RailProxyApplication;
import dev.fencepost.railstub.RailStubApplication;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.JobExecution;
import org.springframework.batch.core.job.parameters.JobParameters;
import org.springframework.batch.core.launch.JobOperator;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The real parts a payout needs, in this JVM: embedded PostgreSQL (lockdb, paydb, proxydb,
 * batchdb), the lock server, the rail stub and the rail proxy as Spring applications on loopback,
 * and payout-job workers as separate application contexts (each with its own lock session, as
 * separate pods would have). Started once per test JVM; tests keep apart by using accounts of their
 * own and asserting on their own payouts.
 */
final class Platform {

  private static Platform shared;

  /**
   * The servers share this test class path with payout-job, so Spring Batch is on it: keep its
   * auto-configuration out of them.
   */
  static final String NOT_A_JOB =
      "org.springframework.boot.batch.autoconfigure.BatchAutoConfiguration,"
          + "org.springframework.boot.batch.jdbc.autoconfigure.BatchJdbcAutoConfiguration,"
          + "org.springframework.boot.batch.autoconfigure.BatchJobLauncherAutoConfiguration,"
          + "dev.fencepost.batch.BatchSupportAutoConfiguration";

  /** The rail stub has no database; JDBC is on this class path for the others. */
  static final String NO_DATABASE =
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration,"
          + "org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration";

  final EmbeddedPostgresServer postgres = EmbeddedPostgresServer.shared();
  final PostgresDatabase lockdb;
  final PostgresDatabase paydb;
  final PostgresDatabase proxydb;
  final PostgresDatabase batchdb;
  final int lockPort;
  ConfigurableApplicationContext lockServer;
  final ConfigurableApplicationContext railStub;
  final ConfigurableApplicationContext railProxy;
  final PaymentResource payments;
  final PaydbFixtures fixtures;
  private final HttpClient http = HttpClient.newHttpClient();

  static synchronized Platform shared() {
    if (shared == null) {
      shared = new Platform();
      Runtime.getRuntime().addShutdownHook(new Thread(shared::close));
    }
    return shared;
  }

  private Platform() {
    lockdb = postgres.createDatabase("job_lockdb");
    paydb =
        postgres
            .createDatabase("job_paydb")
            .applyChangelog("db/changelog/paydb/db.changelog-master.yaml");
    proxydb = postgres.createDatabase("job_proxydb");
    batchdb = postgres.createDatabase("job_batchdb");
    lockPort = freePort();
    lockServer = startLockServer();
    railStub =
        new SpringApplicationBuilder(RailStubApplication.class)
            .run(
                common(
                    "--server.port=0",
                    "--spring.application.name=rail-stub",
                    "--spring.autoconfigure.exclude=" + NOT_A_JOB + "," + NO_DATABASE,
                    "--fencepost.stub.hang=3s"));
    railProxy =
        new SpringApplicationBuilder(RailProxyApplication.class)
            .run(
                common(
                    "--server.port=0",
                    "--spring.application.name=rail-proxy",
                    "--spring.datasource.url=" + proxydb.jdbcUrl(),
                    "--spring.datasource.username=" + proxydb.username(),
                    "--spring.datasource.password=" + proxydb.password(),
                    "--fencepost.rail.base-url=" + url(railStub),
                    "--spring.liquibase.change-log=classpath:db/changelog/proxydb/db.changelog-master.yaml",
                    "--spring.autoconfigure.exclude=" + NOT_A_JOB,
                    "--fencepost.rail.timeout=1s"));
    payments = new PaymentResource(paydb.dataSource(), new SimpleMeterRegistry());
    fixtures = new PaydbFixtures(paydb.dataSource(), "payout-job-tests");
  }

  ConfigurableApplicationContext startLockServer() {
    return new SpringApplicationBuilder(LockServerApplication.class)
        .run(
            common(
                "--server.port=" + lockPort,
                "--spring.application.name=lock-server",
                "--spring.datasource.url=" + lockdb.jdbcUrl(),
                "--spring.datasource.username=" + lockdb.username(),
                "--spring.datasource.password=" + lockdb.password(),
                "--spring.datasource.hikari.maximum-pool-size=6",
                "--spring.liquibase.change-log=classpath:db/changelog/lockdb/db.changelog-master.yaml",
                "--spring.autoconfigure.exclude=" + NOT_A_JOB));
  }

  String lockUrl() {
    return "http://127.0.0.1:" + lockPort;
  }

  String proxyUrl() {
    return url(railProxy);
  }

  String stubUrl() {
    return url(railStub);
  }

  /** A payout-job application with the job not started; {@code extraArgs} override defaults. */
  ConfigurableApplicationContext worker(String... extraArgs) {
    return worker(context -> {}, extraArgs);
  }

  /** The same, with beans registered before refresh (e.g. a test {@link PayoutFailpoint}). */
  ConfigurableApplicationContext worker(
      Consumer<GenericApplicationContext> beforeRefresh, String... extraArgs) {
    List<String> args = new ArrayList<>();
    args.add("--spring.main.web-application-type=none");
    args.add("--spring.application.name=payout-job");
    args.add("--spring.batch.job.enabled=false");
    args.add("--spring.datasource.url=" + batchdb.jdbcUrl());
    args.add("--spring.datasource.username=" + batchdb.username());
    args.add("--spring.datasource.password=" + batchdb.password());
    // The proxy's application.yaml is on this shared test class path and names its changelog.
    args.add("--spring.liquibase.change-log=" + BatchDefaults.BATCHDB_CHANGELOG);
    args.add("--fencepost.payout.paydb.url=" + paydb.jdbcUrl());
    args.add("--fencepost.payout.paydb.username=" + paydb.username());
    args.add("--fencepost.payout.paydb.password=" + paydb.password());
    args.add("--fencepost.payout.proxy.base-url=" + proxyUrl());
    args.add("--fencepost.lock.client.base-url=" + lockUrl());
    args.add("--fencepost.payout.worker-id=worker-" + UUID.randomUUID().toString().substring(0, 8));
    // Spring joins repeated command-line properties with commas: let an extra argument replace.
    for (String extra : extraArgs) {
      String name = extra.substring(0, extra.indexOf('=') + 1);
      args.removeIf(arg -> arg.startsWith(name));
      args.add(extra);
    }
    return PayoutJobApplication.application()
        .initializers(context -> beforeRefresh.accept((GenericApplicationContext) context))
        .run(common(args.toArray(String[]::new)));
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
  int movements(PayoutId payout) throws Exception {
    String body =
        get(stubUrl() + "/rail/admin/movements?clientReference=" + payout.clientReference());
    return Integer.parseInt(body.replaceAll("(?s).*\"count\":(\\d+).*", "$1"));
  }

  /** Rows in the proxy's submission table for this payout (at most one, FR-18). */
  long submissions(PayoutId payout) {
    return JdbcClient.create(proxydb.dataSource())
        .sql("SELECT count(*) FROM rail_submission WHERE payout_id = ?")
        .param(payout.toString())
        .query(Long.class)
        .single();
  }

  /** Makes the rail behave as {@code modes} says for these client references; others settle. */
  void railFaults(Map<String, String> overridesByClientReference) throws Exception {
    StringBuilder overrides = new StringBuilder();
    overridesByClientReference.forEach(
        (reference, mode) ->
            overrides
                .append(overrides.isEmpty() ? "" : ",")
                .append('"')
                .append(reference)
                .append("\":\"")
                .append(mode)
                .append('"'));
    String plan = "{\"rates\":{},\"overrides\":{" + overrides + "},\"lookupLagMillis\":0}";
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(stubUrl() + "/rail/admin/faults"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(plan))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("fault plan refused: " + response.body());
    }
  }

  void resetRailFaults() throws Exception {
    http.send(
        HttpRequest.newBuilder(URI.create(stubUrl() + "/rail/admin/faults")).DELETE().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  String get(String url) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create(url)).GET().build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static String url(ConfigurableApplicationContext context) {
    return "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
  }

  private static String[] common(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--server.address=127.0.0.1");
    all.add("--spring.main.banner-mode=off");
    all.add("--logging.structured.format.console=");
    return all.toArray(String[]::new);
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  void close() {
    for (ConfigurableApplicationContext context : List.of(railProxy, railStub)) {
      context.close();
    }
    if (lockServer != null) {
      lockServer.close();
    }
  }
}
