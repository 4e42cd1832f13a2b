package dev.fencepost.railproxy;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.matchingJsonPath;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static dev.fencepost.testsupport.http.TestHttp.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.extension.Parameters;
import com.github.tomakehurst.wiremock.extension.ServeEventListener;
import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import dev.fencepost.testsupport.http.TestHttp;
import dev.fencepost.testsupport.logging.CapturedEvents;
import dev.fencepost.testsupport.metrics.ScrapeCardinality;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * The proxy against a rail that WireMock plays, one behaviour at a time (FR-17..FR-20, ADRs 0046
 * and 0047, ADR 0042). Every rail test asserts the recorded outcome and that the rail saw exactly
 * one request.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    useMainMethod = SpringBootTest.UseMainMethod.ALWAYS)
class RailSubmissionTest {

  @RegisterExtension
  static EmbeddedPostgresExtension proxydb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/proxydb/db.changelog-master.yaml");

  /** Row state of the submission at the instant the rail received the request, by reference. */
  static final Map<String, String> ROW_WHEN_RAIL_SAW_REQUEST = new ConcurrentHashMap<>();

  /** Responses WireMock holds back until the test counts the latch down, by reference. */
  static final Map<String, CountDownLatch> HELD_RESPONSES = new ConcurrentHashMap<>();

  static final WireMockServer rail = startRail();

  @RegisterExtension CapturedEvents events = new CapturedEvents();

  @LocalServerPort int port;
  @LocalManagementPort int managementPort;
  @Autowired MeterRegistry meters;
  @Autowired PrometheusMeterRegistry prometheus;

  ProxyHttp proxy;
  JdbcTemplate jdbc;
  static final AtomicInteger IDS = new AtomicInteger();

  @DynamicPropertySource
  static void wire(DynamicPropertyRegistry registry) {
    ProxyUnderTest.register(registry, proxydb);
    registry.add("fencepost.rail.base-url", rail::baseUrl);
    // Short budgets keep the suite fast; not so short that a cold JVM on a busy machine trips them.
    registry.add("fencepost.rail.timeout", () -> "1s");
    registry.add("fencepost.rail.connect-timeout", () -> "1s");
    registry.add("fencepost.rail.lookup-timeout", () -> "1s");
  }

  private static WireMockServer startRail() {
    WireMockServer server =
        new WireMockServer(options().dynamicPort().extensions(new IntentProbe()));
    server.start();
    return server;
  }

  @AfterAll
  static void stopRail() {
    rail.stop();
  }

  @BeforeEach
  void setUp() {
    proxy = new ProxyHttp(port);
    jdbc = new JdbcTemplate(proxydb.dataSource());
    warmUpOnce();
  }

  private static volatile boolean warm;

  /**
   * The first exchange of a cold JVM (WireMock's and the proxy's HTTP stacks loading classes) can
   * outlast the short test budgets on a busy machine; pay that once, before any assertion.
   */
  private void warmUpOnce() {
    if (warm) {
      return;
    }
    rail.stubFor(
        get(urlPathEqualTo("/rail/payments"))
            .withQueryParam("clientReference", equalTo("warm-up"))
            .willReturn(aResponse().withStatus(200).withBody("{\"movements\":[]}")));
    await()
        .atMost(java.time.Duration.ofSeconds(60))
        .until(() -> proxy.get("/v1/rail/payments?clientReference=warm-up").statusCode() == 200);
    warm = true;
  }

  // ---------------------------------------------------------------- rail behaviours (FR-20, ADR
  // 0042)

  @Test
  @Tag("FR-20")
  void anAcknowledgementIsRecordedAsAckedWithTheRailReference() {
    String payout = payout();
    railAnswers(payout, created("RAIL-ACK-1"));

    HttpResponse<String> response = proxy.submit(payout, account(), 7);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(json(response).get("outcome").asString()).isEqualTo("ACKED");
    assertThat(json(response).get("railReference").asString()).isEqualTo("RAIL-ACK-1");
    assertRecorded(payout, "ACKED");
    assertThat(row(payout).get("rail_reference")).isEqualTo("RAIL-ACK-1");
    assertRailSawExactlyOne(payout);
    rail.verify(
        postRequestedFor(urlEqualTo("/rail/payments"))
            .withRequestBody(matchingJsonPath("$.amountMinor", equalTo("2500")))
            .withRequestBody(matchingJsonPath("$.currency", equalTo("EUR")))
            .withRequestBody(matchingJsonPath("$.beneficiaryRef", equalTo("ben-" + payout))));
  }

  @Test
  @Tag("FR-20")
  void aDeclineIsRecordedAsRejectedWithTheDeclineCode() {
    String payout = payout();
    railAnswers(
        payout,
        aResponse()
            .withStatus(422)
            .withHeader("Content-Type", "application/json")
            .withBody("{\"status\":\"DECLINED\",\"code\":\"BENEFICIARY_ACCOUNT_CLOSED\"}"));

    HttpResponse<String> response = proxy.submit(payout, account(), 7);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(json(response).get("outcome").asString()).isEqualTo("REJECTED");
    assertThat(json(response).get("declineCode").asString())
        .isEqualTo("BENEFICIARY_ACCOUNT_CLOSED");
    assertRecorded(payout, "REJECTED");
    assertThat(row(payout).get("decline_code")).isEqualTo("BENEFICIARY_ACCOUNT_CLOSED");
    assertRailSawExactlyOne(payout);
  }

  @Test
  @Tag("FR-20")
  @Tag("UC-05")
  void aResponseSlowerThanTheTimeoutIsAmbiguousAndNeverRetried() {
    assertAmbiguousAndSentOnce(created("RAIL-LATE").withFixedDelay(2_500));
  }

  @Test
  @Tag("FR-20")
  @Tag("UC-05")
  void aConnectionResetIsAmbiguousAndNeverRetried() {
    assertAmbiguousAndSentOnce(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER));
  }

  @Test
  @Tag("FR-20")
  @Tag("UC-05")
  void anEmptyResponseIsAmbiguousAndNeverRetried() {
    assertAmbiguousAndSentOnce(aResponse().withFault(Fault.EMPTY_RESPONSE));
  }

  @Test
  @Tag("FR-20")
  @Tag("UC-05")
  void aServerErrorIsAmbiguousAndNeverRetried() {
    assertAmbiguousAndSentOnce(aResponse().withStatus(500).withBody("{\"status\":\"ERROR\"}"));
  }

  @Test
  void aStatusTheProxyDoesNotUnderstandIsAmbiguousNotADecline() {
    assertAmbiguousAndSentOnce(aResponse().withStatus(409).withBody("{}"));
  }

  @Test
  void anAcknowledgementWithoutARailReferenceIsAmbiguous() {
    String payout = payout();
    railAnswers(payout, aResponse().withStatus(201).withBody("not json"));

    assertThat(json(proxy.submit(payout, account(), 7)).get("outcome").asString())
        .isEqualTo("TIMEOUT");
    assertRailSawExactlyOne(payout);
  }

  @Test
  @Tag("FR-19")
  void theIntentIsCommittedBeforeTheRailSeesTheRequest() {
    String payout = payout();
    railAnswers(payout, created("RAIL-ORDER"));

    proxy.submit(payout, account(), 7);

    // Read by another connection at the moment the rail received the request (FR-19).
    assertThat(ROW_WHEN_RAIL_SAW_REQUEST.get("cref-" + payout))
        .isEqualTo("committed, outcome NULL");
    assertRecorded(payout, "ACKED");
  }

  @Test
  @Tag("FR-19")
  void whileTheRailCallIsInFlightTheRowExistsWithNoOutcome() throws Exception {
    String payout = payout();
    railAnswers(payout, created("RAIL-HELD"));
    CountDownLatch release = new CountDownLatch(1);
    HELD_RESPONSES.put("cref-" + payout, release);
    ExecutorService executor = Executors.newSingleThreadExecutor();
    try {
      Future<HttpResponse<String>> inFlight =
          executor.submit(() -> proxy.submit(payout, account(), 7));
      await().until(() -> rail.countRequestsMatching(forPayout(payout).build()).getCount() == 1);

      // The rail has the request and has not answered: the intent exists with no ending, which
      // is exactly what a proxy crash at this instant would leave behind (UC-04).
      assertThat(row(payout)).containsEntry("outcome", null).containsEntry("resolved_at", null);

      release.countDown();
      String outcome = json(inFlight.get()).get("outcome").asString();
      assertThat(outcome).isIn("ACKED", "TIMEOUT");
      assertRecorded(payout, outcome);
    } finally {
      release.countDown();
      executor.shutdownNow();
    }
    assertRailSawExactlyOne(payout);
  }

  // ---------------------------------------------------------------- guards (ADRs 0046 and 0047,
  // FR-17, FR-18)

  @Test
  @Tag("FR-17")
  @Tag("INV-05")
  void aStaleTokenIsRejectedAndNeverReachesTheRail() {
    String account = account();
    String first = payout();
    String stale = payout();
    railAnswers(first, created("RAIL-FIRST"));
    railAnswers(stale, created("RAIL-STALE"));
    double before = counter("fencepost.fence.rejections");
    double staleBefore = guardRejections("stale_token");
    proxy.submit(first, account, 12);

    HttpResponse<String> response = proxy.submit(stale, account, 11);

    assertThat(response.statusCode()).isEqualTo(409);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    JsonNode problem = json(response);
    assertThat(problem.get("code").asString()).isEqualTo("STALE_TOKEN");
    assertThat(problem.get("presentedToken").asLong()).isEqualTo(11);
    assertThat(problem.get("highWater").asLong()).isEqualTo(12);
    assertThat(rail.countRequestsMatching(forPayout(stale).build()).getCount()).isZero();
    assertThat(count("rail_submission WHERE payout_id = ?", stale)).isZero();
    assertThat(rejections(stale)).containsExactly("FENCED:11:12");
    assertThat(counter("fencepost.fence.rejections") - before).isEqualTo(1);
    assertThat(guardRejections("stale_token") - staleBefore).isEqualTo(1);
    assertThat(events.named("lock.fenced_out"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e).containsEntry("guard", "rail-proxy");
              assertThat(e).containsEntry("presentedToken", 11L);
              assertThat(e).containsEntry("highWater", 12L);
              assertThat(e).containsEntry("payoutId", stale);
              assertThat(e).containsEntry("accountId", account);
              assertThat(e).containsEntry("level", "WARN");
            });
  }

  @Test
  @Tag("FR-17")
  void theHoldersOwnTokenMayBePresentedAgainForAnotherPayout() {
    String account = account();
    String a = payout();
    String b = payout();
    railAnswers(a, created("RAIL-A"));
    railAnswers(b, created("RAIL-B"));

    assertThat(proxy.submit(a, account, 20).statusCode()).isEqualTo(200);
    assertThat(proxy.submit(b, account, 20).statusCode()).isEqualTo(200);
  }

  @Test
  @Tag("FR-18")
  @Tag("INV-02")
  void aSecondSubmissionForAPayoutIsRejectedWhateverItsToken() {
    String account = account();
    String payout = payout();
    railAnswers(payout, created("RAIL-ONCE"));
    double before = counter("fencepost.rail.submission.duplicates");
    double duplicatesBefore = guardRejections("duplicate_submission");
    double staleBefore = guardRejections("stale_token");
    proxy.submit(payout, account, 30);

    HttpResponse<String> sameToken = proxy.submit(payout, account, 30);
    HttpResponse<String> newerToken = proxy.submit(payout, account, 31);

    for (HttpResponse<String> response : List.of(sameToken, newerToken)) {
      assertThat(response.statusCode()).isEqualTo(409);
      JsonNode problem = json(response);
      assertThat(problem.get("code").asString()).isEqualTo("DUPLICATE_SUBMISSION");
      assertThat(problem.get("existing").get("payoutId").asString()).isEqualTo(payout);
      assertThat(problem.get("existing").get("fencingToken").asLong()).isEqualTo(30);
      assertThat(problem.get("existing").get("outcome").asString()).isEqualTo("ACKED");
      assertThat(problem.get("existing").get("railReference").asString()).isEqualTo("RAIL-ONCE");
    }
    assertRailSawExactlyOne(payout);
    assertThat(rejections(payout)).containsExactly("DUPLICATE:30:30", "DUPLICATE:31:30");
    // A refused duplicate does not advance the high-water: the intent transaction rolled back.
    assertThat(highWater(account)).isEqualTo(30);
    assertThat(counter("fencepost.rail.submission.duplicates") - before).isEqualTo(2);
    assertThat(guardRejections("duplicate_submission") - duplicatesBefore).isEqualTo(2);
    assertThat(guardRejections("stale_token") - staleBefore).isZero();
    assertThat(events.named("rail.submission.duplicate")).hasSize(2);
  }

  @Test
  @Tag("FR-17")
  void aStaleTokenForAnAlreadySubmittedPayoutIsReportedAsStale() {
    String account = account();
    String payout = payout();
    railAnswers(payout, created("RAIL-BOTH"));
    proxy.submit(payout, account, 50);

    HttpResponse<String> response = proxy.submit(payout, account, 49);

    // Both refusals apply; the fenced-out holder must learn it is fenced out (ADR 0040).
    assertThat(json(response).get("code").asString()).isEqualTo("STALE_TOKEN");
    assertThat(rejections(payout)).containsExactly("FENCED:49:50");
    assertThat(events.named("lock.fenced_out")).hasSize(1);
    assertRailSawExactlyOne(payout);
  }

  @Test
  @Tag("FR-18")
  @Tag("INV-02")
  void concurrentSubmissionsForOnePayoutReachTheRailOnce() throws Exception {
    String account = account();
    String payout = payout();
    railAnswers(payout, created("RAIL-RACE").withFixedDelay(20));
    int threads = 16;
    List<Long> tokens = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      tokens.add(100L + (i * 7L) % threads); // a permutation of 100..115, interleaved
    }
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService executor = Executors.newFixedThreadPool(threads);
    List<Future<HttpResponse<String>>> futures = new ArrayList<>();
    try {
      for (long token : tokens) {
        futures.add(
            executor.submit(
                () -> {
                  start.await();
                  return proxy.submit(payout, account, token);
                }));
      }
      start.countDown();
      List<HttpResponse<String>> responses = new ArrayList<>();
      for (Future<HttpResponse<String>> f : futures) {
        responses.add(f.get());
      }

      List<HttpResponse<String>> accepted =
          responses.stream().filter(r -> r.statusCode() == 200).toList();
      assertThat(accepted).hasSize(1);
      long winner = json(accepted.get(0)).get("fencingToken").asLong();
      for (int i = 0; i < threads; i++) {
        HttpResponse<String> r = responses.get(i);
        if (r == accepted.get(0)) {
          continue;
        }
        assertThat(r.statusCode()).isEqualTo(409);
        String expected = tokens.get(i) < winner ? "STALE_TOKEN" : "DUPLICATE_SUBMISSION";
        assertThat(json(r).get("code").asString())
            .as("token %d", tokens.get(i))
            .isEqualTo(expected);
      }
      assertRailSawExactlyOne(payout);
      assertThat(count("rail_submission WHERE payout_id = ?", payout)).isEqualTo(1);
      assertThat(count("submission_rejection WHERE payout_id = ?", payout)).isEqualTo(threads - 1);
      assertThat(highWater(account)).isEqualTo(winner);
    } finally {
      executor.shutdownNow();
    }
  }

  // ---------------------------------------------------------------- reads and lookup

  @Test
  void aPayoutNeverSubmittedIs404() {
    HttpResponse<String> response = proxy.get("/v1/submissions/po-never-seen");

    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(json(response).get("code").asString()).isEqualTo("SUBMISSION_NOT_FOUND");
  }

  @Test
  void aSubmissionCanBeReadBackByPayoutId() {
    String payout = payout();
    String account = account();
    railAnswers(payout, created("RAIL-READ"));
    proxy.submit(payout, account, 3);

    JsonNode record = json(proxy.get("/v1/submissions/" + payout));

    assertThat(record.get("payoutId").asString()).isEqualTo(payout);
    assertThat(record.get("accountId").asString()).isEqualTo(account);
    assertThat(record.get("fencingToken").asLong()).isEqualTo(3);
    assertThat(record.get("clientReference").asString()).isEqualTo("cref-" + payout);
    assertThat(record.get("outcome").asString()).isEqualTo("ACKED");
    assertThat(record.get("railReference").asString()).isEqualTo("RAIL-READ");
    assertThat(record.get("createdAt").asString()).isNotBlank();
    assertThat(record.get("resolvedAt").asString()).isNotBlank();
  }

  @Test
  void theListingPagesByKeysetWithinATimeWindow() {
    String from =
        jdbc.queryForObject(
            "SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')",
            String.class);
    List<String> payouts = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      String payout = payout();
      railAnswers(payout, created("RAIL-PAGE-" + i));
      proxy.submit(payout, account(), 1);
      payouts.add(payout);
    }

    List<String> seen = new ArrayList<>();
    String after = "0";
    int pages = 0;
    while (after != null) {
      JsonNode page =
          json(proxy.get("/v1/submissions?limit=2&createdFrom=" + from + "&afterId=" + after));
      page.get("items").forEach(item -> seen.add(item.get("payoutId").asString()));
      after = page.get("nextAfterId").isNull() ? null : page.get("nextAfterId").asString();
      pages++;
    }

    assertThat(seen).containsExactlyElementsOf(payouts);
    assertThat(pages).isEqualTo(3);
  }

  @Test
  void anOutOfRangeLimitOrABadTimestampIsA400() {
    assertThat(proxy.get("/v1/submissions?limit=0").statusCode()).isEqualTo(400);
    assertThat(proxy.get("/v1/submissions?limit=501").statusCode()).isEqualTo(400);
    assertThat(proxy.get("/v1/submissions?limit=ten").statusCode()).isEqualTo(400);
    assertThat(proxy.get("/v1/submissions?afterId=-1").statusCode()).isEqualTo(400);
    HttpResponse<String> badTime = proxy.get("/v1/submissions?createdFrom=yesterday");
    assertThat(badTime.statusCode()).isEqualTo(400);
    assertThat(json(badTime).get("field").asString()).isEqualTo("createdFrom");
  }

  @Test
  void theRailLookupIsPassedThrough() {
    rail.stubFor(
        get(urlPathEqualTo("/rail/payments"))
            .withQueryParam("clientReference", equalTo("cref-lookup"))
            .willReturn(
                aResponse()
                    .withStatus(200)
                    .withHeader("Content-Type", "application/json")
                    .withBody(
                        "{\"clientReference\":\"cref-lookup\",\"movements\":[{\"railReference\":"
                            + "\"RAIL-9\",\"status\":\"SETTLED\"}]}")));

    HttpResponse<String> response = proxy.get("/v1/rail/payments?clientReference=cref-lookup");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(json(response).get("movements").get(0).get("railReference").asString())
        .isEqualTo("RAIL-9");
  }

  @Test
  void aFailingRailLookupIsA503NeverA500() {
    rail.stubFor(
        get(urlPathEqualTo("/rail/payments"))
            .withQueryParam("clientReference", equalTo("cref-down"))
            .willReturn(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER)));
    rail.stubFor(
        get(urlPathEqualTo("/rail/payments"))
            .withQueryParam("clientReference", equalTo("cref-500"))
            .willReturn(aResponse().withStatus(500)));
    rail.stubFor(
        get(urlPathEqualTo("/rail/payments"))
            .withQueryParam("clientReference", equalTo("cref-slow"))
            .willReturn(aResponse().withStatus(200).withBody("{}").withFixedDelay(2_500)));

    for (String cref : List.of("cref-down", "cref-500", "cref-slow")) {
      HttpResponse<String> response = proxy.get("/v1/rail/payments?clientReference=" + cref);
      assertThat(response.statusCode()).as(cref).isEqualTo(503);
      assertThat(json(response).get("code").asString()).isEqualTo("RAIL_LOOKUP_UNAVAILABLE");
    }
    assertThat(proxy.get("/v1/rail/payments").statusCode()).isEqualTo(400);
  }

  @Test
  @Tag("NFR-09")
  void metricsNeverCarryAnIdentifier() {
    String payout = payout();
    String account = account();
    railAnswers(payout, created("RAIL-METRICS"));
    proxy.submit(payout, account, 1);
    proxy.submit(payout, account, 1);

    String scrape = new ProxyHttp(managementPort).get("/actuator/prometheus").body();

    assertThat(scrape).contains("fencepost_rail_submissions_total{outcome=\"ACKED\"");
    assertThat(scrape)
        .contains("fencepost_fencing_enabled{check=\"high-water\",guard=\"rail-proxy\"} 1");
    assertThat(scrape).doesNotContain(payout, account, "cref-" + payout, "RAIL-METRICS");
  }

  // ---------------------------------------------------------------- helpers

  private static String payout() {
    return "po-" + IDS.incrementAndGet() + "-" + ProcessHandle.current().pid();
  }

  private static String account() {
    return "acc-" + IDS.incrementAndGet();
  }

  private static ResponseDefinitionBuilder created(String railReference) {
    return aResponse()
        .withStatus(201)
        .withHeader("Content-Type", "application/json")
        .withBody("{\"railReference\":\"" + railReference + "\",\"status\":\"SETTLED\"}");
  }

  private static void railAnswers(String payout, ResponseDefinitionBuilder response) {
    rail.stubFor(
        post(urlEqualTo("/rail/payments"))
            .withRequestBody(matchingJsonPath("$.clientReference", equalTo("cref-" + payout)))
            .willReturn(response));
  }

  private static com.github.tomakehurst.wiremock.matching.RequestPatternBuilder forPayout(
      String payout) {
    return postRequestedFor(urlEqualTo("/rail/payments"))
        .withRequestBody(matchingJsonPath("$.clientReference", equalTo("cref-" + payout)));
  }

  /**
   * With the rail answering a payout {@code answer}, the proxy answers and records TIMEOUT (the
   * outcome is unknown, UC-05) and the rail saw exactly one request: nothing retried.
   */
  private void assertAmbiguousAndSentOnce(ResponseDefinitionBuilder answer) {
    String payout = payout();
    railAnswers(payout, answer);

    HttpResponse<String> response = proxy.submit(payout, account(), 7);

    assertThat(json(response).get("outcome").asString()).isEqualTo("TIMEOUT");
    assertRecorded(payout, "TIMEOUT");
    assertRailSawExactlyOne(payout);
  }

  private static void assertRailSawExactlyOne(String payout) {
    rail.verify(1, forPayout(payout));
  }

  private void assertRecorded(String payout, String outcome) {
    Map<String, Object> row = row(payout);
    assertThat(row.get("outcome")).isEqualTo(outcome);
    assertThat(row.get("resolved_at")).isNotNull();
  }

  private Map<String, Object> row(String payout) {
    return jdbc.queryForMap("SELECT * FROM rail_submission WHERE payout_id = ?", payout);
  }

  private long count(String fromWhere, Object... args) {
    return jdbc.queryForObject("SELECT count(*) FROM " + fromWhere, Long.class, args);
  }

  private long highWater(String account) {
    return jdbc.queryForObject(
        "SELECT high_water FROM account_high_water WHERE account_id = ?", Long.class, account);
  }

  private List<String> rejections(String payout) {
    return jdbc.queryForList(
        "SELECT reason || ':' || presented_token || ':' || coalesce(high_water::text, '-')"
            + " FROM submission_rejection WHERE payout_id = ? ORDER BY id",
        String.class,
        payout);
  }

  @Test
  @Tag("NFR-09")
  void noMetricCarriesAPayoutAnAccountATokenOrAReferenceAsATag() {
    String account = account();
    String accepted = payout();
    String stale = payout();
    railAnswers(accepted, created("RAIL-METRICS"));
    railAnswers(stale, created("RAIL-METRICS-STALE"));
    proxy.submit(accepted, account, 77);
    proxy.submit(accepted, account, 78);
    proxy.submit(stale, account, 76);

    ScrapeCardinality.assertBounded(
        prometheus.scrape(),
        List.of(account, accepted, stale, "76", "77", "78", "RAIL-METRICS", "RAIL-METRICS-STALE"));
  }

  /** {@code fencepost.guard.rejections{guard=rail-proxy,reason}}: registered at start. */
  private double guardRejections(String reason) {
    return meters
        .get("fencepost.guard.rejections")
        .tag("guard", "rail-proxy")
        .tag("reason", reason)
        .counter()
        .count();
  }

  private double counter(String name) {
    var counter = meters.find(name).tag("guard", "rail-proxy").counter();
    return counter == null ? 0 : counter.count();
  }

  /**
   * Runs inside WireMock when a submit arrives, before it answers: looks up the proxy's row from a
   * separate connection, which sees only committed data.
   */
  static final class IntentProbe implements ServeEventListener {

    @Override
    public void beforeMatch(ServeEvent serveEvent, Parameters parameters) {
      if (!"POST".equals(serveEvent.getRequest().getMethod().value())) {
        return;
      }
      JsonNode body = TestHttp.JSON.readTree(serveEvent.getRequest().getBodyAsString());
      String cref = body.path("clientReference").asString("");
      List<Map<String, Object>> rows =
          new JdbcTemplate(proxydb.dataSource())
              .queryForList("SELECT outcome FROM rail_submission WHERE client_reference = ?", cref);
      ROW_WHEN_RAIL_SAW_REQUEST.put(
          cref,
          rows.isEmpty()
              ? "absent"
              : rows.get(0).get("outcome") == null
                  ? "committed, outcome NULL"
                  : "resolved " + rows.get(0).get("outcome"));
    }

    @Override
    public void beforeResponseSent(ServeEvent serveEvent, Parameters parameters) {
      if (!"POST".equals(serveEvent.getRequest().getMethod().value())) {
        return;
      }
      JsonNode body = TestHttp.JSON.readTree(serveEvent.getRequest().getBodyAsString());
      CountDownLatch hold = HELD_RESPONSES.get(body.path("clientReference").asString(""));
      if (hold != null) {
        try {
          hold.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    @Override
    public String getName() {
      return "intent-probe";
    }
  }
}
