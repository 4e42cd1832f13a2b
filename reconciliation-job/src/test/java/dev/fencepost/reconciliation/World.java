package dev.fencepost.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.lock.client.LockTemplate;
import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.Actor;
import dev.fencepost.payment.PaymentResource;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutId;
import dev.fencepost.payment.testkit.PaydbFixtures;
import dev.fencepost.security.BearerTokenSource;
import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.grants.TestGrants;
import dev.fencepost.testsupport.http.TestHttp;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One test's world: a fresh paydb (so deliberate corruption never leaks into another test), the
 * shared stub, proxies and lock server, a payout worker that follows UC-01 against them, and a
 * reconciler over it all.
 */
final class World {

  static final JsonMapper JSON = JsonMapper.builder().build();
  private static final AtomicInteger ACCOUNTS = new AtomicInteger();
  // Built when the first world is: after the shared stack, whose CA this JVM then trusts (ADR
  // 0150).
  private static HttpClient http;

  private static synchronized HttpClient http() {
    if (http == null) {
      http = newHttp();
    }
    return http;
  }

  private static HttpClient newHttp() {
    return HttpClient.newBuilder()
        .sslContext(TestStack.get().platform.tls().sslContext())
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
  }

  final TestStack stack = TestStack.get();
  final PostgresDatabase paydbDatabase;
  final DataSource paydb;
  final PaymentResource payments;
  final PaydbFixtures fixtures;
  final JdbcClient sql;
  final LockTemplate locks;
  final MeterRegistry meters = new SimpleMeterRegistry();
  final Instant startedAt;

  World(LockTemplate locks) {
    this.locks = locks;
    this.paydbDatabase = stack.postgres.createDatabase("recon_paydb");
    this.paydb = paydbDatabase.dataSource();
    PaydbMigration.apply(paydb);
    this.payments = new PaymentResource(paydb, meters);
    this.fixtures = new PaydbFixtures(paydb, "reconciliation-test");
    this.sql = JdbcClient.create(paydb);
    send("DELETE", stack.stubUrl() + "/rail/admin/movements", null);
    send("DELETE", stack.stubUrl() + "/rail/admin/faults", null);
    this.startedAt = Instant.now().minusMillis(1);
  }

  /** The window a test reconciles: from its own start to a moment after its last write. */
  ReconciliationWindow window() {
    return new ReconciliationWindow(startedAt, Instant.now().plusSeconds(1));
  }

  ReconciliationSettings settings() {
    return ReconciliationSettings.defaults("reconciler-test");
  }

  Reconciler reconciler(ReconciliationSettings settings) {
    return reconciler(settings, stack.proxyUrl());
  }

  Reconciler reconciler(ReconciliationSettings settings, String proxyUrl) {
    return Reconciler.create(
        paydb,
        proxyUrl,
        stack.stubUrl(),
        locks,
        meters,
        settings,
        stack.tokens(FencepostRole.RECONCILER));
  }

  /** The world's reconciler with its statements from {@code statements}. */
  Reconciler reconciler(ReconciliationSettings settings, StatementSource statements) {
    return Reconciler.create(
        paydb,
        stack.proxyUrl(),
        statements,
        locks,
        meters,
        settings,
        stack.tokens(FencepostRole.RECONCILER));
  }

  /**
   * The world's reconciler with its submissions from {@code submissions} and every page size given:
   * the statement's, the postings' and the comparison's (ADR 0168, 0187), down to one.
   */
  Reconciler pagedReconciler(
      ReconciliationSettings settings,
      SubmissionSource submissions,
      int statementPage,
      int postingPage,
      int comparePage) {
    PaydbReads reads = new PaydbReads(paydb, postingPage);
    return new Reconciler(
        new AmbiguityResolver(payments, reads, proxyReads(), locks, settings),
        new Detector(
            reads,
            payments,
            submissions,
            new RailStatementSource(
                stack.stubUrl(),
                java.time.Duration.ofSeconds(5),
                stack.tokens(FencepostRole.RECONCILER),
                statementPage),
            new StatementEntryStore(paydb),
            new WindowSubmissionStore(paydb),
            settings,
            comparePage),
        new RunStore(paydb),
        reads,
        new ReconciliationSignals(meters, reads, settings.sampleSize()));
  }

  /** The proxy's read API as the reconciler reads it. */
  ProxyReadClient proxyReads() {
    return new ProxyReadClient(
        stack.proxyUrl(), java.time.Duration.ofSeconds(5), stack.tokens(FencepostRole.RECONCILER));
  }

  /** The rail's camt.053 statement of {@code window} (one page of up to 1,000 entries), as XML. */
  String statementXml(ReconciliationWindow window) {
    HttpResponse<String> r =
        send(
            "GET",
            stack.stubUrl()
                + "/rail/statements?pageSize=1000&bookedFrom="
                + java.net.URLEncoder.encode(
                    window.from().toString(), java.nio.charset.StandardCharsets.UTF_8)
                + "&bookedTo="
                + java.net.URLEncoder.encode(
                    window.to().toString(), java.nio.charset.StandardCharsets.UTF_8),
            null,
            stack.tokens(FencepostRole.RECONCILER));
    if (r.statusCode() != 200) {
      throw new IllegalStateException("statement refused: " + r.statusCode() + " " + r.body());
    }
    return r.body();
  }

  OperatorActions operatorActions(ReconciliationSettings settings) {
    return new OperatorActions(payments, new PaydbReads(paydb), locks, settings, meters);
  }

  AccountId account(long funding) {
    AccountId id =
        AccountId.of(
            "acc-recon-" + ProcessHandle.current().pid() + "-" + ACCOUNTS.incrementAndGet());
    fixtures.createAccount(id, funding);
    return id;
  }

  Payout pending(AccountId account, long amount) {
    return fixtures.createPendingPayout(account, amount, "EUR", "ben-" + account.value());
  }

  /** A funded account with one PENDING payout. */
  Payout pending() {
    return pending(account(100_000), 2_500);
  }

  /** How far the worker goes before it "dies". */
  enum Until {
    POSTED,
    ACKED_NOT_POSTED
  }

  /**
   * UC-01 as a worker does it, through the real lock server and the real proxy: acquire, claim,
   * submit with the token, record the outcome, post. Stops early when asked (a worker that died).
   */
  Payout execute(Payout payout, Until until) {
    return execute(payout, until, stack.proxyUrl());
  }

  Payout execute(Payout payout, Until until, String proxyUrl) {
    Actor worker = Actor.worker("test-worker");
    return locks.execute(
        payout.accountId().lockKey(),
        Duration.ofSeconds(5),
        lock -> {
          PayoutId id = payout.id();
          payments.claim(id, lock.token(), worker);
          JsonNode answer = submit(proxyUrl, payout, lock.token().value());
          payments.markSubmitted(id, lock.token(), worker);
          String outcome = answer.path("outcome").asString();
          switch (outcome) {
            case "ACKED" -> {
              payments.recordRailAcked(
                  id, lock.token(), worker, answer.path("railReference").asString());
              if (until == Until.POSTED) {
                return payments.post(id, lock.token(), worker);
              }
              return payments.findPayout(id).orElseThrow();
            }
            case "REJECTED" -> {
              return payments.recordRailDeclined(
                  id, lock.token(), worker, answer.path("declineCode").asString());
            }
            default -> {
              return payments.recordRailTimeout(id, lock.token(), worker, "rail " + outcome);
            }
          }
        });
  }

  /** POSTs a submission to a proxy; the answer's body (ACKED, REJECTED or TIMEOUT). */
  /**
   * A worker that skips the proxy (INV-07 bypassed) takes {@code payout} to POSTED under a real
   * lock through payment-resource's own API: every paydb step fenced and legal, the rail never
   * asked, the acknowledgement {@code railReference} invented.
   */
  /** Money sent to the rail around the proxy, through the stub's API: no guard sees it. */
  void railPost(String clientReference, long amountMinor, String beneficiaryRef) {
    String body =
        JSON.writeValueAsString(
            Map.of(
                "clientReference",
                clientReference,
                "amountMinor",
                amountMinor,
                "currency",
                "EUR",
                "beneficiaryRef",
                beneficiaryRef));
    assertThat(send("POST", stack.stubUrl() + "/rail/payments", body).statusCode()).isEqualTo(201);
  }

  Payout postedByARogueWorker(Payout payout, String railReference) {
    Actor rogue = Actor.worker("rogue-worker");
    return locks.execute(
        payout.accountId().lockKey(),
        Duration.ofSeconds(5),
        lock -> {
          payments.claim(payout.id(), lock.token(), rogue);
          payments.markSubmitted(payout.id(), lock.token(), rogue);
          payments.recordRailAcked(payout.id(), lock.token(), rogue, railReference);
          return payments.post(payout.id(), lock.token(), rogue);
        });
  }

  JsonNode submit(String proxyUrl, Payout payout, long token) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("payoutId", payout.id().toString());
    body.put("accountId", payout.accountId().value());
    body.put("fencingToken", token);
    body.put("clientReference", payout.clientReference());
    body.put("amountMinor", payout.amountMinor());
    body.put("currency", payout.currency());
    body.put("beneficiaryRef", payout.beneficiaryRef());
    // Signed with the platform's lock-server key, as the lock server signs a grant (ADR 0137).
    body.put(
        "grant",
        TestGrants.sign(
            stack.grantKeys().current(),
            payout.accountId().lockKey().value(),
            token,
            Instant.now().plusSeconds(60)));
    HttpResponse<String> response =
        send("POST", proxyUrl + "/v1/submissions", JSON.writeValueAsString(body));
    if (response.statusCode() != 200) {
      throw new IllegalStateException(
          "proxy answered " + response.statusCode() + ": " + response.body());
    }
    return JSON.readTree(response.body());
  }

  /** Sets the stub's fault plan: per-client-reference overrides and the lookup lag. */
  void faults(Map<String, String> overrides, Duration lookupLag) {
    Map<String, Object> plan = new LinkedHashMap<>();
    plan.put("rates", Map.of());
    plan.put("overrides", overrides);
    plan.put("lookupLagMillis", lookupLag.toMillis());
    HttpResponse<String> r =
        send("PUT", stack.stubUrl() + "/rail/admin/faults", JSON.writeValueAsString(plan));
    if (r.statusCode() / 100 != 2) {
      throw new IllegalStateException("fault plan refused: " + r.body());
    }
  }

  /** Every movement the rail made (the stub's ground truth). */
  JsonNode movements() {
    return JSON.readTree(send("GET", stack.stubUrl() + "/rail/admin/movements", null).body())
        .path("movements");
  }

  int movementCount(String clientReference) {
    int n = 0;
    for (JsonNode m : movements()) {
      if (clientReference.equals(m.path("clientReference").asString())) {
        n++;
      }
    }
    return n;
  }

  /**
   * Sends as the caller that would: a submit as the payout worker, a payment straight to the rail
   * as the rail proxy, the stub's admin side and the actuator as an operator.
   */
  static HttpResponse<String> send(String method, String url, String body) {
    FencepostRole caller =
        url.contains("/v1/submissions")
            ? FencepostRole.PAYOUT_WORKER
            : url.contains("/rail/payments") ? FencepostRole.RAIL_PROXY : FencepostRole.OPERATOR;
    return send(method, url, body, TestStack.get().tokens(caller));
  }

  /** Sends with {@code tokens}' bearer token, or none when {@code tokens} is null. */
  static HttpResponse<String> send(
      String method, String url, String body, BearerTokenSource tokens) {
    TestHttp client =
        new TestHttp(
            http(),
            "",
            Duration.ofSeconds(30),
            request -> tokens == null ? null : tokens.currentToken());
    return TestHttp.unchecked(() -> client.send(method, url, body));
  }

  void close() {
    paydbDatabase.close();
  }
}
