package dev.fencepost.railproxy;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.fencepost.security.EndpointAccess;
import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.grants.TestGrants;
import dev.fencepost.testsupport.http.TestHttp;
import dev.fencepost.testsupport.logging.CapturedEvents;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import dev.fencepost.testsupport.security.AccessMatrix;
import dev.fencepost.testsupport.security.AccessMatrix.Endpoint;
import dev.fencepost.testsupport.security.TestIssuer;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpMethod;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Who may call what on the proxy (ADR 0145), each endpoint against no credentials (401), every role
 * it does not allow (403) and the roles it does (the normal answer), over a real port with a real
 * proxydb; and the refused calls change nothing: no submission, no rejection row, no high-water, no
 * rail request. Then the proxy's own rail credential: without one nothing is recorded or sent.
 */
class ProxyAccessTest {

  @RegisterExtension
  static EmbeddedPostgresExtension proxydb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/proxydb/db.changelog-master.yaml");

  @RegisterExtension CapturedEvents events = new CapturedEvents();

  static final WireMockServer rail = new WireMockServer(options().dynamicPort());

  /** An issuer with its own key, which no service here trusts: its tokens are 401. */
  static final TestIssuer STRANGER = TestIssuer.start();

  ConfigurableApplicationContext app;
  JdbcTemplate jdbc;

  static final String ATTACKED_ACCOUNT = "acc-attacked";

  static final List<Endpoint<ProxyHttp>> ENDPOINTS =
      List.of(
          new Endpoint<>(
              "POST /v1/submissions",
              EnumSet.of(FencepostRole.PAYOUT_WORKER),
              // A real-looking payout under a huge fencing token: accepted, it would raise the
              // account's high-water beyond every honest worker's token.
              proxy -> proxy.submit("po-attack", ATTACKED_ACCOUNT, Long.MAX_VALUE / 2)),
          new Endpoint<>(
              "GET /v1/submissions/{payoutId}",
              EnumSet.of(FencepostRole.PAYOUT_WORKER, FencepostRole.RECONCILER),
              proxy -> proxy.get("/v1/submissions/po-known")),
          new Endpoint<>(
              "GET /v1/submissions",
              EnumSet.of(FencepostRole.RECONCILER),
              proxy -> proxy.get("/v1/submissions?limit=10")),
          new Endpoint<>(
              "GET /v1/rail/payments",
              EnumSet.of(FencepostRole.RECONCILER),
              proxy -> proxy.get("/v1/rail/payments?clientReference=cref-po-known")));

  @BeforeEach
  void setUp() {
    if (!rail.isRunning()) {
      rail.start();
    }
    rail.resetAll();
    ProxyUnderTest.settleEverything(rail, "RAIL-1");
    rail.stubFor(
        get(urlPathEqualTo("/rail/payments"))
            .willReturn(
                aResponse()
                    .withStatus(200)
                    .withHeader("Content-Type", "application/json")
                    .withBody("{\"movements\":[]}")));
    jdbc = new JdbcTemplate(proxydb.dataSource());
  }

  @AfterEach
  void stop() {
    if (app != null) {
      app.close();
      // Each test starts from an empty proxydb. The evidence tables refuse TRUNCATE by trigger
      // (proxydb-003); replica mode, a superuser's, fires no ordinary trigger.
      jdbc.execute(
          "SET session_replication_role = replica; TRUNCATE rail_submission,"
              + " submission_rejection, account_high_water, unguarded_submission;"
              + " SET session_replication_role = origin");
    }
  }

  @AfterAll
  static void stopRail() {
    rail.stop();
    STRANGER.close();
  }

  @Test
  void eachEndpointAnswersOnlyTheRolesItAllowsAndRefusalsChangeNothing() throws Exception {
    int port = start(TestIdentities.RAIL_TOKEN_FILE);
    assertThat(ProxyHttp.as(port, FencepostRole.PAYOUT_WORKER).submit("po-known", "acc-k", 3))
        .extracting(HttpResponse::statusCode)
        .isEqualTo(200);
    rail.resetRequests();
    long highWaterBefore = highWater("acc-k");

    List<String> violations = violations(port);

    assertThat(violations).isEmpty();
    // Only the allowed worker's submit reached anything: one row, one rail call, its own account.
    assertThat(count("rail_submission WHERE payout_id = 'po-attack'")).isEqualTo(1);
    assertThat(count("submission_rejection")).isZero();
    assertThat(highWater(ATTACKED_ACCOUNT)).isEqualTo(Long.MAX_VALUE / 2);
    assertThat(highWater("acc-k")).isEqualTo(highWaterBefore);
    rail.verify(1, postRequestedFor(urlEqualTo("/rail/payments")));
    assertThat(events.named("security.unauthenticated")).hasSizeGreaterThanOrEqualTo(4);
    assertThat(events.named("security.forbidden")).isNotEmpty();
  }

  @Test
  void refusedSubmitsLeaveNoTraceAnywhere() {
    int port = start(TestIdentities.RAIL_TOKEN_FILE);
    List<ProxyHttp> refused = new ArrayList<>();
    refused.add(ProxyHttp.anonymous(port));
    refused.add(
        new ProxyHttp(
            port, request -> STRANGER.token("payout-worker", FencepostRole.PAYOUT_WORKER)));
    for (FencepostRole role : EnumSet.complementOf(EnumSet.of(FencepostRole.PAYOUT_WORKER))) {
      refused.add(ProxyHttp.as(port, role));
    }

    for (ProxyHttp caller : refused) {
      assertThat(caller.submit("po-refused", ATTACKED_ACCOUNT, Long.MAX_VALUE / 2).statusCode())
          .isIn(401, 403);
    }

    assertThat(count("rail_submission")).isZero();
    assertThat(count("submission_rejection")).isZero();
    assertThat(count("account_high_water")).isZero();
    rail.verify(0, anyRequestedFor(anyUrl()));
  }

  @Test
  void theProxyCallsTheRailAsRailProxy() {
    int port = start(TestIdentities.RAIL_TOKEN_FILE);

    new ProxyHttp(port).submit("po-bearer", "acc-b", 1);
    new ProxyHttp(port).get("/v1/rail/payments?clientReference=cref-po-bearer");

    String expected = "Bearer " + readToken();
    assertThat(rail.getAllServeEvents())
        .hasSize(2)
        .allSatisfy(
            served ->
                assertThat(served.getRequest().getHeader("Authorization")).isEqualTo(expected));
  }

  @Test
  void withoutARailCredentialNothingIsRecordedOrSentAndTheAnswerIsA503() throws Exception {
    Path missing = Files.createTempDirectory("no-token").resolve("token.jwt");
    int port = start(missing);
    ProxyHttp worker = ProxyHttp.as(port, FencepostRole.PAYOUT_WORKER);

    HttpResponse<String> response = worker.submit("po-no-cred", "acc-nc", 5);

    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(TestHttp.json(response).get("code").asString())
        .isEqualTo("RAIL_CREDENTIALS_UNAVAILABLE");
    assertThat(count("rail_submission")).isZero();
    assertThat(count("account_high_water")).isZero();
    assertThat(count("submission_rejection")).isZero();
    rail.verify(0, anyRequestedFor(anyUrl()));
    assertThat(events.named("rail.submission.no_credentials")).hasSize(1);
    assertThat(
            ProxyHttp.as(port, FencepostRole.RECONCILER)
                .get("/v1/rail/payments?clientReference=cref-po-no-cred")
                .statusCode())
        .isEqualTo(503);
    rail.verify(0, anyRequestedFor(anyUrl()));

    // The same payout goes through once the credential appears: the refusal left nothing behind.
    Files.writeString(missing, readToken());
    assertThat(worker.submit("po-no-cred", "acc-nc", 5).statusCode()).isEqualTo(200);
    rail.verify(1, postRequestedFor(urlEqualTo("/rail/payments")));
  }

  /** Negative control: with a rule loosened the matrix reports it, so it can fail. */
  @Test
  void theMatrixDetectsALoosenedRule() throws Exception {
    int port = start(TestIdentities.RAIL_TOKEN_FILE, LoosenedRules.class);

    List<String> violations = violations(port);

    assertThat(violations)
        .anySatisfy(v -> assertThat(v).startsWith("POST /v1/submissions as RECONCILER"));
    assertThat(count("rail_submission WHERE payout_id = 'po-attack'")).isEqualTo(1);
  }

  /** A test-local rules bean, declared before the proxy's own, letting any caller submit. */
  static class LoosenedRules {
    @Bean
    @Order(Ordered.HIGHEST_PRECEDENCE)
    EndpointAccess submitsForEveryone() {
      return rules -> rules.authenticated(HttpMethod.POST, "/v1/submissions");
    }
  }

  /** What the matrix finds wrong: each line one call whose answer broke the rules. */
  private static List<String> violations(int port) throws Exception {
    return AccessMatrix.violations(
        ENDPOINTS, () -> ProxyHttp.anonymous(port), role -> ProxyHttp.as(port, role));
  }

  private int start(Path railToken, Class<?>... extra) {
    List<Class<?>> sources = new ArrayList<>(List.of(extra));
    SpringApplicationBuilder builder = RailProxyApplication.application();
    if (!sources.isEmpty()) {
      builder.sources(sources.toArray(Class<?>[]::new));
    }
    app =
        builder.run(
            ProxyUnderTest.args(proxydb, rail, railToken, TestGrants.staticProxyArg())
                .toArray(String[]::new));
    events.start();
    return ProxyUnderTest.port(app);
  }

  private long highWater(String account) {
    List<Long> found =
        jdbc.queryForList(
            "SELECT high_water FROM account_high_water WHERE account_id = ?", Long.class, account);
    return found.isEmpty() ? 0 : found.get(0);
  }

  private long count(String fromWhere) {
    return jdbc.queryForObject("SELECT count(*) FROM " + fromWhere, Long.class);
  }

  private static String readToken() {
    try {
      return Files.readString(TestIdentities.RAIL_TOKEN_FILE).strip();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
