package dev.fencepost.railproxy;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.matchingJsonPath;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static dev.fencepost.testsupport.http.TestHttp.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import dev.fencepost.launcher.GrantSigningKeys;
import dev.fencepost.testsupport.grants.TestGrants;
import dev.fencepost.testsupport.http.TestHttp;
import dev.fencepost.testsupport.logging.CapturedEvents;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The proxy accepts only tokens the lock server signed for the submission's account (ADR 0137):
 * every other submission is a 403 with its code, one {@code submission_rejection} row, no rail call
 * and no change of the high-water. The keys come from a stand-in lock server's {@code
 * /v1/grant-keys} (WireMock), so rotation and removal are exercised as the proxy meets them.
 */
@Tag("FR-17")
@Tag("INV-05")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SignedGrantSubmissionTest {

  @RegisterExtension
  static EmbeddedPostgresExtension proxydb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/proxydb/db.changelog-master.yaml");

  @RegisterExtension final CapturedEvents events = new CapturedEvents();

  static final AtomicInteger IDS = new AtomicInteger();

  static WireMockServer rail;
  static WireMockServer lockServer;
  static GrantSigningKeys keys;
  static ConfigurableApplicationContext app;
  static ProxyHttp proxy;
  static JdbcTemplate jdbc;

  @BeforeAll
  static void start() throws Exception {
    rail = ProxyUnderTest.settlingRail("RAIL-SIGNED");
    lockServer = new WireMockServer(options().dynamicPort());
    lockServer.start();
    keys = GrantSigningKeys.generate(Files.createTempDirectory("proxy-grant-keys-"));
    publish(keys);
    app = startProxy(proxydb, rail, lockServer.baseUrl() + "/v1/grant-keys", null);
    proxy = new ProxyHttp(ProxyUnderTest.port(app));
    jdbc = new JdbcTemplate(proxydb.dataSource());
    // The first key fetch of a cold JVM (both HTTP stacks loading classes) can outlast the short
    // fetch timeout on a busy machine; pay that once, before any assertion.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> new Attempt(1).submitSignedBy(keys.current()).statusCode() == 200);
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
    rail.stop();
    lockServer.stop();
  }

  /**
   * A proxy on {@code db} whose keys are at {@code keysUri}; {@code verifier} replaces the check.
   */
  static ConfigurableApplicationContext startProxy(
      EmbeddedPostgresExtension db, WireMockServer rail, String keysUri, GrantVerifier verifier) {
    List<String> args = ProxyUnderTest.args(db, rail);
    args.add("--server.address=127.0.0.1");
    args.add("--spring.main.banner-mode=off");
    args.add("--logging.structured.format.console=");
    args.add("--fencepost.proxy.grants.jwk-set-uri=" + keysUri);
    args.add("--fencepost.proxy.grants.keys-cache-ttl=3s");
    args.add("--fencepost.proxy.grants.keys-refetch-min-interval=100ms");
    args.add("--fencepost.proxy.grants.keys-fetch-timeout=2500ms");
    var builder = RailProxyApplication.application();
    if (verifier != null) {
      builder.initializers(
          (ApplicationContextInitializer<ConfigurableApplicationContext>)
              context -> context.getBeanFactory().registerSingleton("testVerifier", verifier));
    }
    return builder.run(args.toArray(String[]::new));
  }

  static void publish(GrantSigningKeys set) throws Exception {
    lockServer.stubFor(
        get(urlEqualTo("/v1/grant-keys"))
            .willReturn(
                aResponse()
                    .withStatus(200)
                    .withHeader("Content-Type", "application/jwk-set+json")
                    .withBody(Files.readString(set.publicFile()))));
  }

  // ------------------------------------------------------------------------------ refusals

  @Test
  void aGrantSignedByAKeyTheLockServerNeverPublishedIsRefusedAsForged() throws Exception {
    ECKey impostor = new ECKeyGenerator(Curve.P_256).keyID(keys.current().getKeyID()).generate();
    Attempt attempt = new Attempt(5);
    String forged = TestGrants.sign(impostor, attempt.lockKey(), 5, Instant.now().plusSeconds(60));

    HttpResponse<String> response = attempt.submit(Optional.of(forged));

    attempt.assertRefused(response, "FORGED_GRANT");
  }

  @Test
  void anExpiredGrantIsRefused() {
    Attempt attempt = new Attempt(5);
    String expired =
        TestGrants.sign(keys.current(), attempt.lockKey(), 5, Instant.now().minusSeconds(60));

    attempt.assertRefused(attempt.submit(Optional.of(expired)), "GRANT_EXPIRED");
  }

  @Test
  void aGrantForAnotherAccountIsRefused() {
    Attempt attempt = new Attempt(5);
    String otherAccount =
        TestGrants.sign(keys.current(), "payout:acc-other", 5, Instant.now().plusSeconds(60));

    attempt.assertRefused(attempt.submit(Optional.of(otherAccount)), "GRANT_MISMATCH");
  }

  @Test
  void aGrantForAnotherTokenIsRefused() {
    Attempt attempt = new Attempt(5);
    String otherToken =
        TestGrants.sign(keys.current(), attempt.lockKey(), 4, Instant.now().plusSeconds(60));

    attempt.assertRefused(attempt.submit(Optional.of(otherToken)), "GRANT_MISMATCH");
  }

  @Test
  void aSubmissionWithoutAGrantIsRefused() {
    Attempt attempt = new Attempt(5);

    attempt.assertRefused(attempt.submit(Optional.empty()), "GRANT_MISSING");
    assertThat(events.named("rail.submission.grant_refused"))
        .anySatisfy(e -> assertThat(e.get("code")).isEqualTo("GRANT_MISSING"));
    assertThat(
            app.getBean(MeterRegistry.class)
                .counter(
                    "fencepost.rail.submission.grant_refusals",
                    "guard",
                    "rail-proxy",
                    "code",
                    "GRANT_MISSING")
                .count())
        .isPositive();
    assertThat(
            app.getBean(MeterRegistry.class)
                .get("fencepost.guard.rejections")
                .tag("guard", "rail-proxy")
                .tag("reason", "grant_missing")
                .counter()
                .count())
        .isPositive();
  }

  @Test
  void theMaximumTokenWithoutAGrantOrWithAForgedOneNeverRaisesTheHighWater() throws Exception {
    MaxTokenOutcome outcome = maxTokenScenario(proxy, jdbc, rail, keys.current());

    assertThat(outcome.statuses()).containsExactly(403, 403);
    assertThat(outcome.highWaterAfter()).isEqualTo(5);
    assertThat(outcome.maxTokenRailRequests()).isZero();
    assertThat(outcome.nextHolderStatus()).isEqualTo(200);
  }

  /** What the maximum-token attack did to an account, for this test and its negative control. */
  record MaxTokenOutcome(
      List<Integer> statuses,
      long highWaterAfter,
      long maxTokenRailRequests,
      int nextHolderStatus) {}

  /**
   * An account at high-water 5; then token {@code Long.MAX_VALUE} without a grant and with a grant
   * forged by a key the lock server never published; then the next real holder (token 6).
   */
  static MaxTokenOutcome maxTokenScenario(
      ProxyHttp proxy, JdbcTemplate jdbc, WireMockServer rail, ECKey realKey) throws Exception {
    String account = "acc-max-" + IDS.incrementAndGet();
    String first = "po-max-first-" + IDS.incrementAndGet();
    Map<String, Object> firstBody = ProxyHttp.body(first, account, 5);
    firstBody.put(
        "grant", TestGrants.sign(realKey, "payout:" + account, 5, Instant.now().plusSeconds(60)));
    assertThat(
            proxy.post("/v1/submissions", TestHttp.JSON.writeValueAsString(firstBody)).statusCode())
        .isEqualTo(200);
    ECKey impostor = new ECKeyGenerator(Curve.P_256).keyID("grant-impostor").generate();
    List<Integer> statuses = new ArrayList<>();
    List<String> attackPayouts = new ArrayList<>();
    for (Optional<String> grant :
        List.of(
            Optional.<String>empty(),
            Optional.of(
                TestGrants.sign(
                    impostor,
                    "payout:" + account,
                    Long.MAX_VALUE,
                    Instant.now().plusSeconds(60))))) {
      String payout = "po-max-" + IDS.incrementAndGet();
      attackPayouts.add(payout);
      Map<String, Object> body = ProxyHttp.body(payout, account, Long.MAX_VALUE);
      grant.ifPresentOrElse(g -> body.put("grant", g), () -> body.remove("grant"));
      statuses.add(
          proxy.post("/v1/submissions", TestHttp.JSON.writeValueAsString(body)).statusCode());
    }
    long highWater =
        jdbc.queryForObject(
            "SELECT high_water FROM account_high_water WHERE account_id = ?", Long.class, account);
    long railRequests = attackPayouts.stream().mapToLong(p -> railRequestsFor(rail, p)).sum();
    String next = "po-max-next-" + IDS.incrementAndGet();
    Map<String, Object> body = ProxyHttp.body(next, account, 6);
    body.put(
        "grant", TestGrants.sign(realKey, "payout:" + account, 6, Instant.now().plusSeconds(60)));
    int nextStatus =
        proxy.post("/v1/submissions", TestHttp.JSON.writeValueAsString(body)).statusCode();
    return new MaxTokenOutcome(statuses, highWater, railRequests, nextStatus);
  }

  // ------------------------------------------------------------------------------ rotation

  // Last: it changes the published keys the other tests sign with.
  @Test
  @Order(Integer.MAX_VALUE)
  void aRotatedKeySetIsFetchedOnItsNewKeyIdAndTheRemovedKeyStopsVerifyingWithinTheCacheTtl()
      throws Exception {
    ECKey previous = keys.current();
    GrantSigningKeys rotated = keys.rotate();
    publish(rotated);

    // A grant by the new key: its kid is unknown to the cache, so the proxy fetches it at once
    // (unless it fetched less than the 100 ms rate limit ago: then it is refused, and the holder
    // tries again later).
    Attempt byNewKey = new Attempt(5);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> byNewKey.submitSignedBy(rotated.current()).statusCode() == 200);
    // The previous key is still published: grants it signed before the rotation still verify.
    Attempt byPreviousKey = new Attempt(5);
    assertThat(byPreviousKey.submitSignedBy(previous).statusCode()).isEqualTo(200);

    GrantSigningKeys removed = rotated.withoutPrevious();
    publish(removed);
    // Once the cached set has expired (3 s here), the removed key no longer verifies anything.
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(300))
        .until(() -> new Attempt(5).submitSignedBy(previous).statusCode() == 403);
    Attempt afterRemoval = new Attempt(5);
    afterRemoval.assertRefused(afterRemoval.submitSignedBy(previous), "FORGED_GRANT");
    assertThat(new Attempt(5).submitSignedBy(removed.current()).statusCode()).isEqualTo(200);
    keys = removed;
  }

  // ------------------------------------------------------------------------------ helpers

  /** One submission of a fresh payout of a fresh account at high-water {@code 5 - 0}. */
  static final class Attempt {
    final String account = "acc-grant-" + IDS.incrementAndGet();
    final String payout = "po-grant-" + IDS.incrementAndGet();
    final long token;

    Attempt(long token) {
      this.token = token;
    }

    String lockKey() {
      return "payout:" + account;
    }

    HttpResponse<String> submit(Optional<String> grant) {
      Map<String, Object> body = ProxyHttp.body(payout, account, token);
      grant.ifPresentOrElse(g -> body.put("grant", g), () -> body.remove("grant"));
      return proxy.post("/v1/submissions", TestHttp.JSON.writeValueAsString(body));
    }

    HttpResponse<String> submitSignedBy(ECKey key) {
      return submit(
          Optional.of(TestGrants.sign(key, lockKey(), token, Instant.now().plusSeconds(60))));
    }

    void assertRefused(HttpResponse<String> response, String code) {
      assertThat(response.statusCode()).as(response.body()).isEqualTo(403);
      assertThat(json(response).get("code").asString()).isEqualTo(code);
      assertThat(railRequestsFor(rail, payout)).as("rail requests").isZero();
      assertThat(
              jdbc.queryForList(
                  "SELECT high_water FROM account_high_water WHERE account_id = ?",
                  Long.class,
                  account))
          .as("high-water")
          .isEmpty();
      assertThat(
              jdbc.queryForList(
                  "SELECT count(*) FROM rail_submission WHERE payout_id = ?", Long.class, payout))
          .containsExactly(0L);
      assertThat(
              jdbc.queryForList(
                  "SELECT reason FROM submission_rejection WHERE payout_id = ?",
                  String.class,
                  payout))
          .containsExactly(code);
    }
  }

  static long railRequestsFor(WireMockServer rail, String payout) {
    return rail.countRequestsMatching(
            postRequestedFor(urlEqualTo("/rail/payments"))
                .withRequestBody(matchingJsonPath("$.clientReference", equalTo("cref-" + payout)))
                .build())
        .getCount();
  }
}
