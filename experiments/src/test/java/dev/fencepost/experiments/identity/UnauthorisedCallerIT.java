package dev.fencepost.experiments.identity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.experiments.harness.Evidence;
import dev.fencepost.experiments.harness.LockServers;
import dev.fencepost.experiments.harness.Settings;
import dev.fencepost.launcher.App;
import dev.fencepost.launcher.GrantSigningKeys;
import dev.fencepost.launcher.LocalIdentity;
import dev.fencepost.launcher.LocalPlatform;
import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.testkit.PaydbFixtures;
import dev.fencepost.security.BearerTokenSource;
import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.grants.TestGrants;
import dev.fencepost.testsupport.http.TestHttp;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.JsonNode;

/**
 * An attacker on the platform's network tries to move money and to steer the platform, twice: with
 * no identity at all, and with a valid identity of the wrong role (the reconciler's). Real
 * processes from their jars, the platform's own issuer: it submits a real payout to the proxy under
 * a huge fencing token, pays straight at the rail stub, rewrites the stub's faults and erases its
 * ledger, cancels and abandons the payout, launches the reconciliation job, force-revokes the lock
 * a worker holds and closes that worker's session. Every call is refused; afterwards nothing has
 * moved or changed, and every refusal is in the services' logs. docs/evidence/identity-attack.md is
 * written from this run.
 *
 * <p>Long tier (tag {@code long}): each application's own access tests refuse the same calls in the
 * test command; this run is the end-to-end evidence over real processes.
 */
@Tag("long")
class UnauthorisedCallerIT {

  // The services serve HTTPS (ADR 0150): this client trusts the experiments' CA.
  static final HttpClient HTTP =
      HttpClient.newBuilder()
          .sslContext(LockServers.tls().sslContext())
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  static final Duration START = LockServers.START_TIMEOUT;

  /** One attempt: what was tried, by whom, and the answer. */
  record Attempt(String attack, String attacker, int status) {}

  /** What the platform looks like from the inside: must not change under attack. */
  record Snapshot(
      int railMovements,
      String faultPlan,
      long submissions,
      long rejections,
      long highWater,
      String payoutState,
      long auditRows,
      long jobExecutions,
      String lockHolder) {}

  @Test
  void noCallWithoutTheRightRoleMovesMoneyOrChangesAnything() throws Exception {
    Path dir = Settings.runsDir().resolve("identity-attack");
    LocalIdentity identity = LockServers.identity();
    try (Services services = Services.start(dir, identity)) {
      PaydbFixtures fixtures = new PaydbFixtures(services.paydb.dataSource(), "identity-attack");
      AccountId account = AccountId.of("acc-attacked");
      fixtures.createAccount(account, 100_000);
      Payout honest = fixtures.createPendingPayout(account, 1_000, "EUR", "ben-honest");
      Payout payout = fixtures.createPendingPayout(account, 2_500, "EUR", "ben-honest");
      String lockKey = account.lockKey().value();

      // The honest path works: the worker's identity submits a payout under token 5.
      BearerTokenSource worker = identity.tokens(FencepostRole.PAYOUT_WORKER);
      assertThat(
              json(send(
                      "POST",
                      services.proxy.baseUrl() + "/v1/submissions",
                      signedSubmission(honest, 5, honest.amountMinor(), "ben-honest"),
                      worker))
                  .path("outcome")
                  .asString())
          .isEqualTo("ACKED");
      // A worker holds the account's lock: the revoke and the session close have a victim.
      String lock = services.lockServer.baseUrl();
      String sessionId =
          json(send(
                  "POST",
                  lock + "/v1/sessions",
                  "{\"owner\":\"victim-worker\",\"ttlMillis\":600000}",
                  worker))
              .path("sessionId")
              .asString();
      assertThat(
              json(send(
                      "POST",
                      lock + "/v1/locks/" + lockKey + "/acquire",
                      "{\"sessionId\":\"" + sessionId + "\",\"waitMillis\":0}",
                      worker))
                  .path("token")
                  .asLong())
          .isPositive();

      Snapshot before = services.snapshot(identity, payout, lockKey);
      List<Attempt> attempts = new ArrayList<>();
      for (Attack attack : attacks(services, payout, lockKey, sessionId)) {
        attempts.add(
            new Attempt(attack.name(), "no identity", attack.call().apply(null).statusCode()));
        attempts.add(
            new Attempt(
                attack.name(),
                LocalIdentity.clientId(attack.wrongRole()) + " (wrong role)",
                attack.call().apply(identity.tokens(attack.wrongRole())).statusCode()));
      }
      Snapshot after = services.snapshot(identity, payout, lockKey);
      Map<String, long[]> refusalsLogged =
          refusalsLogged(
              Map.of(
                  "rail proxy", services.proxy.log(),
                  "rail stub", services.stub.log(),
                  "lock server", services.lockServer.log(),
                  "reconciliation", services.reconciliation.log()));

      assertThat(attempts)
          .filteredOn(a -> a.attacker().equals("no identity"))
          .allSatisfy(a -> assertThat(a.status()).as(a.attack()).isEqualTo(401));
      assertThat(attempts)
          .filteredOn(a -> !a.attacker().equals("no identity"))
          .allSatisfy(a -> assertThat(a.status()).as(a.attack()).isEqualTo(403));
      assertThat(after).isEqualTo(before);
      assertThat(after.railMovements()).isEqualTo(1);
      assertThat(after.highWater()).isEqualTo(5);
      long logged =
          refusalsLogged.values().stream().mapToLong(counts -> counts[0] + counts[1]).sum();
      assertThat(logged).isGreaterThanOrEqualTo(attempts.size());

      write(attempts, before, after, refusalsLogged);
    }
  }

  /** One attack: what it tries, the call, and the workload identity that is wrong for it. */
  record Attack(
      String name,
      FencepostRole wrongRole,
      Function<BearerTokenSource, HttpResponse<String>> call) {}

  static String submission(Payout payout, long token, long amount, String beneficiary) {
    return "{\"payoutId\":\""
        + payout.id()
        + "\",\"accountId\":\""
        + payout.accountId().value()
        + "\",\"fencingToken\":"
        + token
        + ",\"clientReference\":\""
        + payout.clientReference()
        + "\",\"amountMinor\":"
        + amount
        + ",\"currency\":\"EUR\",\"beneficiaryRef\":\""
        + beneficiary
        + "\"}";
  }

  /**
   * The same with the lock server's signed grant for the token, as an honest worker presents it
   * (ADR 0137).
   */
  static String signedSubmission(Payout payout, long token, long amount, String beneficiary) {
    String grant =
        TestGrants.sign(
            LockServers.grantKeys().current(),
            payout.accountId().lockKey().value(),
            token,
            java.time.Instant.now().plusSeconds(60));
    String unsigned = submission(payout, token, amount, beneficiary);
    return unsigned.substring(0, unsigned.length() - 1) + ",\"grant\":\"" + grant + "\"}";
  }

  private static List<Attack> attacks(
      Services services, Payout payout, String lockKey, String sessionId) {
    String proxy = services.proxy.baseUrl();
    String stub = services.stub.baseUrl();
    String lock = services.lockServer.baseUrl();
    String ops = services.reconciliation.managementUrl() + "/actuator";
    FencepostRole reconciler = FencepostRole.RECONCILER;
    return List.of(
        new Attack(
            "submit the real payout to the proxy: fencing token 9e15, amount 10^9, own IBAN",
            reconciler,
            t ->
                send(
                    "POST",
                    proxy + "/v1/submissions",
                    submission(payout, 9_000_000_000_000_000L, 1_000_000_000L, "attacker-iban"),
                    t)),
        new Attack(
            "pay straight at the rail stub",
            reconciler,
            t ->
                send(
                    "POST",
                    stub + "/rail/payments",
                    "{\"clientReference\":\"attacker-direct\",\"amountMinor\":1000000000,"
                        + "\"currency\":\"EUR\",\"beneficiaryRef\":\"attacker-iban\"}",
                    t)),
        new Attack(
            "rewrite the stub's fault plan",
            reconciler,
            t ->
                send(
                    "PUT",
                    stub + "/rail/admin/faults",
                    "{\"rates\":{\"TIMEOUT_AFTER_SETTLE\":1.0}}",
                    t)),
        new Attack(
            "erase the stub's movement ledger",
            reconciler,
            t -> send("DELETE", stub + "/rail/admin/movements", null, t)),
        new Attack(
            "cancel the payout",
            reconciler,
            t ->
                send(
                    "POST",
                    ops + "/payoutops/" + payout.id() + "/cancel",
                    "{\"reason\":\"attack\"}",
                    t)),
        new Attack(
            "abandon the payout",
            reconciler,
            t ->
                send(
                    "POST",
                    ops + "/payoutops/" + payout.id() + "/abandon",
                    "{\"reason\":\"attack\"}",
                    t)),
        new Attack(
            "launch the reconciliation job",
            reconciler,
            t -> send("POST", ops + "/batchjobs/reconciliationJob", "{}", t)),
        new Attack(
            "force-revoke the worker's lock",
            reconciler,
            t ->
                send(
                    "POST",
                    lock + "/v1/admin/locks/" + lockKey + "/revoke",
                    "{\"reason\":\"attack\"}",
                    t)),
        // The reconciler holds locks itself, so session calls are its role; the rail proxy's
        // identity is the workload that has no business with sessions.
        new Attack(
            "close the worker's session",
            FencepostRole.RAIL_PROXY,
            t -> send("DELETE", lock + "/v1/sessions/" + sessionId, null, t)));
  }

  /**
   * The services under attack, each its own process from its jar, trusting this JVM's experiment
   * issuer and calling as their own workload: lock server on PostgreSQL, rail stub, rail proxy, and
   * a long-running reconciliation (as operators run it for hand launches).
   */
  static final class Services implements AutoCloseable {
    final EmbeddedPostgresServer postgres;
    final PostgresDatabase paydb;
    final PostgresDatabase proxydb;
    final PostgresDatabase batchdb;
    final List<JavaProcess> processes = new ArrayList<>();
    JavaProcess lockServer;
    JavaProcess stub;
    JavaProcess proxy;
    JavaProcess reconciliation;

    private Services(EmbeddedPostgresServer postgres) {
      this.postgres = postgres;
      this.paydb = LocalPlatform.createPaydb(postgres, "paydb");
      this.proxydb =
          postgres
              .createDatabase("proxydb")
              .applyChangelog("db/changelog/proxydb/db.changelog-master.yaml");
      this.batchdb = LocalPlatform.createBatchdb(postgres, "batchdb");
    }

    static Services start(Path dir, LocalIdentity identity) {
      Services services = new Services(EmbeddedPostgresServer.startDedicated());
      try {
        services.startProcesses(dir, identity);
        return services;
      } catch (RuntimeException e) {
        services.close();
        throw e;
      }
    }

    private void startProcesses(Path dir, LocalIdentity identity) {
      lockServer =
          LockServers.start(
              "lock-server",
              dir.resolve("lock-server.log"),
              LockServers.on(postgres.createDatabase("lockdb")));
      processes.add(lockServer);
      stub =
          LocalIdentity.withEnvironment(
                  App.RAIL_STUB.process("rail-stub", dir.resolve("rail-stub.log")),
                  identity.serviceEnvironment())
              .httpPort(0)
              .start();
      processes.add(stub);
      stub.awaitHealthy(START);
      proxy =
          LocalIdentity.withEnvironment(
                  App.RAIL_PROXY.process("rail-proxy", dir.resolve("rail-proxy.log")),
                  identity.clientEnvironment(FencepostRole.RAIL_PROXY))
              .httpPort(0)
              .args(LocalPlatform.postgresArgs(proxydb))
              .arg("--fencepost.rail.base-url=" + stub.baseUrl())
              // The proxy verifies grants against the lock server's published keys (ADR 0137), a
              // hop over TLS like the others.
              .arg(GrantSigningKeys.remoteProxyArg(lockServer.baseUrl()))
              .start();
      processes.add(proxy);
      proxy.awaitHealthy(START);
      List<String> args = new ArrayList<>(LocalPlatform.postgresArgs(batchdb));
      args.add("--fencepost.paydb.url=" + paydb.jdbcUrl());
      args.add("--fencepost.paydb.username=" + paydb.runtime().username());
      args.add("--fencepost.paydb.password=" + paydb.runtime().password());
      args.add("--fencepost.reconciliation.proxy-base-url=" + proxy.baseUrl());
      args.add("--fencepost.reconciliation.rail-statement-url=" + stub.baseUrl());
      args.add("--fencepost.lock.client.base-url=" + lockServer.baseUrl());
      // Long-running: nothing runs until someone launches it.
      args.add("--spring.batch.job.enabled=false");
      reconciliation =
          LocalIdentity.withEnvironment(
                  App.RECONCILIATION_JOB.process(
                      "reconciliation", dir.resolve("reconciliation.log")),
                  identity.clientEnvironment(FencepostRole.RECONCILER))
              .httpPort(0)
              .args(args)
              .start();
      processes.add(reconciliation);
      reconciliation.awaitHealthy(START);
    }

    /** The platform from the inside: the operator's reads and the stores themselves. */
    Snapshot snapshot(LocalIdentity identity, Payout payout, String lockKey) {
      BearerTokenSource operator = identity.tokens(FencepostRole.OPERATOR);
      JdbcClient proxyRows = JdbcClient.create(proxydb.dataSource());
      JdbcClient payRows = JdbcClient.create(paydb.dataSource());
      JsonNode lock =
          json(send("GET", lockServer.baseUrl() + "/v1/locks/" + lockKey, null, operator));
      return new Snapshot(
          json(send("GET", stub.baseUrl() + "/rail/admin/movements", null, operator))
              .path("count")
              .asInt(),
          send("GET", stub.baseUrl() + "/rail/admin/faults", null, operator).body(),
          proxyRows.sql("SELECT count(*) FROM rail_submission").query(Long.class).single(),
          proxyRows.sql("SELECT count(*) FROM submission_rejection").query(Long.class).single(),
          proxyRows
              .sql("SELECT coalesce(max(high_water), 0) FROM account_high_water")
              .query(Long.class)
              .single(),
          payRows
              .sql("SELECT state FROM payout WHERE id = :id")
              .param("id", payout.id().value())
              .query(String.class)
              .single(),
          payRows.sql("SELECT count(*) FROM audit_event").query(Long.class).single(),
          JdbcClient.create(batchdb.dataSource())
              .sql("SELECT count(*) FROM batch_job_execution")
              .query(Long.class)
              .single(),
          lock.path("held").asBoolean()
              ? lock.path("owner").asString()
                  + ", token "
                  + lock.path("token").asLong()
                  + ", session "
                  + lock.path("sessionId").asString()
              : "free");
    }

    @Override
    public void close() {
      for (int i = processes.size() - 1; i >= 0; i--) {
        processes.get(i).close();
      }
      postgres.close();
    }
  }

  /** Per service: {unauthenticated, forbidden} refusal events in its log. */
  private static Map<String, long[]> refusalsLogged(Map<String, Path> logs) throws IOException {
    Map<String, long[]> counts = new LinkedHashMap<>();
    for (String service : List.of("rail proxy", "rail stub", "lock server", "reconciliation")) {
      List<String> lines = Files.readAllLines(logs.get(service));
      counts.put(
          service,
          new long[] {
            lines.stream().filter(l -> l.contains("\"security.unauthenticated\"")).count(),
            lines.stream().filter(l -> l.contains("\"security.forbidden\"")).count()
          });
    }
    return counts;
  }

  private static void write(
      List<Attempt> attempts, Snapshot before, Snapshot after, Map<String, long[]> logged) {
    StringBuilder table = new StringBuilder("| attack | caller | answer |\n|---|---|---|\n");
    attempts.forEach(
        a ->
            table
                .append("| ")
                .append(a.attack())
                .append(" | ")
                .append(a.attacker())
                .append(" | ")
                .append(a.status())
                .append(" |\n"));
    StringBuilder state =
        new StringBuilder("| what | before | after |\n|---|---|---|\n")
            .append(
                row("rail movements (stub ledger)", before.railMovements(), after.railMovements()))
            .append(row("stub fault plan", before.faultPlan(), after.faultPlan()))
            .append(row("proxy submissions", before.submissions(), after.submissions()))
            .append(row("proxy rejections", before.rejections(), after.rejections()))
            .append(row("highest high-water", before.highWater(), after.highWater()))
            .append(row("payout state", before.payoutState(), after.payoutState()))
            .append(row("paydb audit rows", before.auditRows(), after.auditRows()))
            .append(row("job executions", before.jobExecutions(), after.jobExecutions()))
            .append(row("account lock", before.lockHolder(), after.lockHolder()));
    StringBuilder events =
        new StringBuilder(
            "| service | `security.unauthenticated` | `security.forbidden` |\n|---|---|---|\n");
    logged.forEach(
        (service, counts) ->
            events
                .append("| ")
                .append(service)
                .append(" | ")
                .append(counts[0])
                .append(" | ")
                .append(counts[1])
                .append(" |\n"));
    new Evidence(
            "identity-attack",
            "An unauthorised caller on the network moves nothing",
            UnauthorisedCallerIT.class)
        .paragraph(
            "The identity issuer, the lock server on PostgreSQL, the rail stub, the rail proxy and"
                + " a long-running reconciliation job, each its own process from its jar. The"
                + " worker's identity has paid one payout of the attacked account (fencing token 5)"
                + " and holds the account's lock. The attacker then calls every service twice:"
                + " without a token, and with a valid token of a workload whose role the call does"
                + " not allow (the reconciler's; for the session, the rail proxy's, since the"
                + " reconciler holds locks itself). ADRs 0145, 0146, 0147;"
                + " docs/security.md.")
        .paragraph("## Every attempt and its answer\n\n" + table)
        .paragraph("## The platform before and after\n\n" + state)
        .paragraph("## Refusals in the services' logs\n\n" + events)
        .write();
  }

  private static String row(String what, Object before, Object after) {
    return "| " + what + " | " + cell(before) + " | " + cell(after) + " |\n";
  }

  private static String cell(Object value) {
    return String.valueOf(value).replace("|", "\\|");
  }

  private static JsonNode json(HttpResponse<String> response) {
    assertThat(response.statusCode()).as(response.body()).isBetween(200, 299);
    return TestHttp.json(response);
  }

  /** Sends with {@code tokens}' bearer token, or none when {@code tokens} is null. */
  static HttpResponse<String> send(
      String method, String url, String body, BearerTokenSource tokens) {
    TestHttp http =
        new TestHttp(
            HTTP,
            "",
            Duration.ofSeconds(30),
            request -> tokens == null ? null : tokens.currentToken());
    return TestHttp.unchecked(() -> http.send(method, url, body));
  }
}
