package dev.fencepost.railproxy;

import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static dev.fencepost.testsupport.http.TestHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.generate.Generated;
import dev.fencepost.testsupport.http.Refusals;
import dev.fencepost.testsupport.http.TestHttp;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Bad input is a 4xx problem with a stable code, and changes nothing: no row in any proxydb table
 * and no request to the rail. Hand-picked cases first, then generated cases for every endpoint
 * (seeded by {@code Generated}, so a failure names its seed and case), each sent with the token of
 * the caller the endpoint serves so the input reaches the handler:
 *
 * <ul>
 *   <li>{@code POST /v1/submissions}: a body that is not a JSON object (empty, truncated, not JSON,
 *       an array, a scalar, nested one level too deep) is 400 {@code MALFORMED_JSON} or {@code
 *       INVALID_REQUEST}; one field missing, null, of the wrong type, non-positive, beyond a long,
 *       fractional, of another currency, overlong or with a character outside {@code
 *       [A-Za-z0-9:._-]} (control characters included) is 400 {@code INVALID_REQUEST} naming the
 *       field ({@link SubmissionRequest}); a body that is not {@code application/json} is 415; one
 *       over the limit 413.
 *   <li>{@code GET /v1/submissions/{payoutId}}: an id outside {@code [A-Za-z0-9:._-]{1,128}} is 400
 *       {@code INVALID_REQUEST} (or 400 from Tomcat/the firewall for an encoded slash or NUL); a
 *       well-formed id without a submission is 404 {@code SUBMISSION_NOT_FOUND}.
 *   <li>{@code GET /v1/submissions}: {@code createdFrom}/{@code createdTo} not an ISO-8601 instant
 *       with offset, a window whose end is not after its start, {@code afterId} or {@code limit}
 *       not an integer or out of range (limit 1..max-page-size): 400 {@code INVALID_REQUEST} naming
 *       the parameter.
 *   <li>{@code GET /v1/rail/payments}: a missing or badly formed {@code clientReference}: 400
 *       {@code INVALID_REQUEST}, and the rail is not asked.
 *   <li>A method or path no rule declares: 403 {@code FORBIDDEN} before routing (ADR 0145).
 *   <li>The management port, as an operator: an endpoint no rule declares is 403, a malformed
 *       metrics tag 400, a method an endpoint does not serve 405.
 * </ul>
 *
 * <p>The high-water repair is not an HTTP operation: it is proxydb's {@code repair_high_water}, for
 * the operator role only ({@link HighWaterRepairTest}).
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    useMainMethod = SpringBootTest.UseMainMethod.ALWAYS)
class BadInputTest {

  @RegisterExtension
  static EmbeddedPostgresExtension proxydb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/proxydb/db.changelog-master.yaml");

  // Would settle, were it ever reached: after each test it must have seen no request at all.
  static final WireMockServer rail = ProxyUnderTest.settlingRail("R");

  @LocalServerPort int port;
  @LocalManagementPort int managementPort;
  ProxyHttp proxy;
  JdbcTemplate jdbc;

  @DynamicPropertySource
  static void wire(DynamicPropertyRegistry registry) {
    ProxyUnderTest.register(registry, proxydb);
    registry.add("fencepost.rail.base-url", rail::baseUrl);
  }

  @AfterAll
  static void stopRail() {
    rail.stop();
  }

  @BeforeEach
  void setUp() {
    proxy = new ProxyHttp(port);
    jdbc = new JdbcTemplate(proxydb.dataSource());
  }

  @AfterEach
  void nothingWasWrittenAndNothingWasSent() {
    for (String table :
        List.of(
            "rail_submission",
            "submission_rejection",
            "account_high_water",
            "unguarded_submission")) {
      assertThat(jdbc.queryForObject("SELECT count(*) FROM " + table, Long.class))
          .as(table)
          .isZero();
    }
    assertThat(rail.countRequestsMatching(anyRequestedFor(anyUrl()).build()).getCount()).isZero();
  }

  static Stream<Arguments> badBodies() {
    String ok =
        "\"payoutId\":\"po-1\",\"accountId\":\"acc-1\",\"clientReference\":\"c-1\","
            + "\"beneficiaryRef\":\"b-1\",\"currency\":\"EUR\"";
    return Stream.of(
        Arguments.of("empty body", "", "MALFORMED_JSON"),
        Arguments.of("truncated JSON", "{\"payoutId\":", "MALFORMED_JSON"),
        Arguments.of("not JSON at all", "payout please", "MALFORMED_JSON"),
        Arguments.of("an array", "[1,2]", "INVALID_REQUEST"),
        Arguments.of("a bare number", "42", "INVALID_REQUEST"),
        Arguments.of("missing token", "{" + ok + ",\"amountMinor\":5}", "INVALID_REQUEST"),
        Arguments.of(
            "non-numeric token",
            "{" + ok + ",\"amountMinor\":5,\"fencingToken\":\"abc\"}",
            "INVALID_REQUEST"),
        Arguments.of(
            "token as a numeric string",
            "{" + ok + ",\"amountMinor\":5,\"fencingToken\":\"42\"}",
            "INVALID_REQUEST"),
        Arguments.of(
            "negative token",
            "{" + ok + ",\"amountMinor\":5,\"fencingToken\":-3}",
            "INVALID_REQUEST"),
        Arguments.of(
            "zero token", "{" + ok + ",\"amountMinor\":5,\"fencingToken\":0}", "INVALID_REQUEST"),
        Arguments.of(
            "fractional token",
            "{" + ok + ",\"amountMinor\":5,\"fencingToken\":1.5}",
            "INVALID_REQUEST"),
        Arguments.of(
            "token beyond a long",
            "{" + ok + ",\"amountMinor\":5,\"fencingToken\":99999999999999999999}",
            "INVALID_REQUEST"),
        Arguments.of(
            "zero amount", "{" + ok + ",\"amountMinor\":0,\"fencingToken\":3}", "INVALID_REQUEST"),
        Arguments.of(
            "negative amount",
            "{" + ok + ",\"amountMinor\":-100,\"fencingToken\":3}",
            "INVALID_REQUEST"),
        Arguments.of(
            "fractional amount",
            "{" + ok + ",\"amountMinor\":10.5,\"fencingToken\":3}",
            "INVALID_REQUEST"),
        Arguments.of(
            "wrong currency",
            "{\"payoutId\":\"po-1\",\"accountId\":\"acc-1\",\"clientReference\":\"c-1\","
                + "\"beneficiaryRef\":\"b-1\",\"currency\":\"USD\",\"amountMinor\":5,\"fencingToken\":3}",
            "INVALID_REQUEST"),
        Arguments.of(
            "payout id with a slash",
            "{\"payoutId\":\"po/1\",\"accountId\":\"acc-1\",\"clientReference\":\"c-1\","
                + "\"beneficiaryRef\":\"b-1\",\"currency\":\"EUR\",\"amountMinor\":5,\"fencingToken\":3}",
            "INVALID_REQUEST"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badBodies")
  void aBadBodyIsRefusedWithAProblem(String name, String body, String code) {
    HttpResponse<String> response = proxy.post("/v1/submissions", body);

    assertThat(response.statusCode()).isEqualTo(400);
    assertProblem(response, code);
  }

  @Test
  void generatedBodiesWithOneBadFieldAreAllRefused() {
    Generated.forAll(
        150,
        BadBodies::mutation,
        mutation -> {
          HttpResponse<String> response =
              proxy.post("/v1/submissions", TestHttp.JSON.writeValueAsString(mutation.body()));

          assertThat(response.statusCode()).as(mutation.toString()).isEqualTo(400);
          assertProblem(response, "INVALID_REQUEST");
          assertThat(json(response).get("field").asString()).isEqualTo(mutation.field());
        });
  }

  @Test
  void aHugeDeclaredBodyIsRefusedBeforeItIsRead() {
    String huge = "{\"payoutId\":\"" + "x".repeat(1_000_000) + "\"}";

    HttpResponse<String> response = proxy.post("/v1/submissions", huge);

    assertThat(response.statusCode()).isEqualTo(413);
    assertProblem(response, "PAYLOAD_TOO_LARGE");
  }

  @Test
  void aHugeChunkedBodyIsCutOffWhileItIsRead() {
    byte[] huge =
        ("{\"payoutId\":\"" + "x".repeat(200_000) + "\"}").getBytes(StandardCharsets.UTF_8);
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(proxy.base() + "/v1/submissions"))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            // An input-stream publisher has no length: the body goes out chunked.
            .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(huge)))
            .build();

    HttpResponse<String> response = proxy.send(request);

    assertThat(response.statusCode()).isEqualTo(413);
    assertProblem(response, "PAYLOAD_TOO_LARGE");
  }

  @Test
  void aBodyThatIsNotJsonByContentTypeIsA415() {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(proxy.base() + "/v1/submissions"))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "text/plain")
            .POST(HttpRequest.BodyPublishers.ofString("payoutId=po-1"))
            .build();

    HttpResponse<String> response = proxy.send(request);

    assertThat(response.statusCode()).isEqualTo(415);
    assertProblem(response, "UNSUPPORTED_MEDIA_TYPE");
  }

  @Test
  void badPathsAndMethodsAreProblemsToo() {
    assertProblem(proxy.get("/v1/submissions/po%20bad"), "INVALID_REQUEST");
    // A path or method no rule declares is refused before routing (ADR 0145): 403, not 404/405.
    assertProblem(proxy.get("/v1/nowhere"), "FORBIDDEN");
    HttpResponse<String> delete =
        proxy.send(
            HttpRequest.newBuilder(URI.create(proxy.base() + "/v1/submissions/po-1"))
                .DELETE()
                .build());
    assertThat(delete.statusCode()).isEqualTo(403);
    assertProblem(delete, "FORBIDDEN");
  }

  // --- generated cases for every endpoint --------------------------------------------------

  private static final int CASES = Generated.cases(100, 300);
  private static final String ID_CHARS =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:._-";

  @Test
  void generatedBodiesOfEveryKindAreRefused() {
    Generated.forAll(
        CASES,
        BadInputTest::badSubmissionBody,
        body -> Refusals.assertRefused(proxy.post("/v1/submissions", body)));
  }

  @Test
  void generatedBodiesOfAnotherContentTypeAre415() {
    Generated.forAll(
        50,
        r ->
            Generated.pick(r, "text/plain", "application/xml", "application/x-www-form-urlencoded"),
        type -> {
          HttpResponse<String> response =
              proxy.send(
                  HttpRequest.newBuilder(URI.create(proxy.base() + "/v1/submissions"))
                      .timeout(Duration.ofSeconds(30))
                      .header("Content-Type", type)
                      .POST(
                          HttpRequest.BodyPublishers.ofString(
                              TestHttp.JSON.writeValueAsString(ProxyHttp.body("po-1", "acc-1", 5))))
                      .build());
          assertThat(Refusals.assertRefused(response)).isEqualTo("UNSUPPORTED_MEDIA_TYPE");
        });
  }

  @Test
  void generatedBadPayoutIdsAreRefused() {
    Generated.forAll(
        CASES,
        r -> Generated.oneOf(r, x -> encode(badIdentifier(x)), x -> "po-unknown-" + x.nextInt()),
        id -> {
          HttpResponse<String> response = proxy.get("/v1/submissions/" + id);
          String code = Refusals.assertRefused(response);
          if (id.startsWith("po-unknown-")) {
            assertThat(code).isEqualTo("SUBMISSION_NOT_FOUND");
          }
        });
  }

  @Test
  void generatedBadPageQueriesAreRefusedNamingTheParameter() {
    Generated.forAll(
        CASES,
        BadInputTest::badPageQuery,
        query -> {
          HttpResponse<String> response = proxy.get("/v1/submissions?" + query.get(1));
          assertThat(Refusals.assertRefused(response)).isEqualTo("INVALID_REQUEST");
          assertThat(json(response).path("field").asString()).isEqualTo(query.get(0));
        });
  }

  @Test
  void generatedBadLookupsAreRefusedWithoutAskingTheRail() {
    Generated.forAll(
        CASES,
        r ->
            Generated.oneOf(
                r,
                x -> "",
                x -> "?clientReference=",
                x -> "?clientReference=" + encode(badIdentifier(x))),
        query -> {
          HttpResponse<String> response = proxy.get("/v1/rail/payments" + query);
          assertThat(Refusals.assertRefused(response)).isEqualTo("INVALID_REQUEST");
        });
  }

  @Test
  void generatedUndeclaredMethodsAndPathsAreRefused() {
    Generated.forAll(
        100,
        r ->
            Generated.pick(
                r,
                List.of("PUT", "/v1/submissions"),
                List.of("DELETE", "/v1/submissions"),
                List.of("PATCH", "/v1/submissions/po-1"),
                List.of("POST", "/v1/submissions/po-1"),
                List.of("POST", "/v1/rail/payments"),
                List.of("DELETE", "/v1/rail/payments"),
                List.of("GET", "/v1/" + Generated.string(r, "abcxyz", 1, 20)),
                List.of("POST", "/" + Generated.string(r, "abcxyz", 1, 20))),
        call -> {
          HttpResponse<String> response =
              proxy.send(
                  HttpRequest.newBuilder(URI.create(proxy.base() + call.get(1)))
                      .timeout(Duration.ofSeconds(30))
                      .header("Content-Type", "application/json")
                      .method(call.get(0), HttpRequest.BodyPublishers.ofString("{}"))
                      .build());
          assertThat(Refusals.assertRefused(response)).isEqualTo("FORBIDDEN");
        });
  }

  @Test
  void generatedBadInputToTheManagementPortIsRefused() {
    TestHttp management =
        TestHttp.loopback(
            managementPort,
            Duration.ofSeconds(30),
            request -> TestIdentities.token(FencepostRole.OPERATOR));
    Generated.forAll(
        100,
        r ->
            switch (r.nextInt(3)) {
              case 0 ->
                  Arrays.asList("GET", "/actuator/" + Generated.string(r, "abcxyz", 1, 20), null);
              case 1 ->
                  Arrays.asList(
                      "GET",
                      "/actuator/metrics/jvm.memory.used?tag="
                          + Generated.pick(r, "area", "nosuch", "value"),
                      null);
              default ->
                  Arrays.asList(
                      Generated.pick(r, "POST", "DELETE", "PUT"),
                      Generated.pick(r, "/actuator/health", "/actuator/metrics", "/actuator/info"),
                      "{}");
            },
        call ->
            Refusals.assertRefused(
                TestHttp.unchecked(() -> management.send(call.get(0), call.get(1), call.get(2)))));
  }

  static String badSubmissionBody(Random r) {
    String valid = TestHttp.JSON.writeValueAsString(ProxyHttp.body("po-g", "acc-g", 5));
    return switch (r.nextInt(6)) {
      case 0 -> Generated.notAJsonObject(r);
      case 1 -> "{\"submission\":" + valid + "}";
      case 2 -> "[" + valid + "]";
      case 3 -> {
        String field = Generated.pick(r, BadBodies.IDENTIFIERS);
        yield valid.replace(
            "\"" + field + "\":\"",
            "\""
                + field
                + "\":\""
                + TestHttp.JSON
                    .writeValueAsString(Generated.withControlCharacter(r, "", ""))
                    .replace("\"", ""));
      }
      case 4 -> {
        String field = Generated.pick(r, BadBodies.NUMBERS);
        yield valid.replaceFirst(
            "\"" + field + "\":[0-9]+",
            "\"" + field + "\":" + Generated.pick(r, Generated.NOT_A_POSITIVE_LONG));
      }
      default -> {
        String field = Generated.pick(r, BadBodies.IDENTIFIERS);
        yield valid.replaceFirst(
            "\"" + field + "\":\"[^\"]*\"",
            "\"" + field + "\":" + Generated.pick(r, Generated.NOT_A_STRING));
      }
    };
  }

  /** An identifier outside {@code [A-Za-z0-9:._-]{1,128}}. */
  static String badIdentifier(Random r) {
    return Generated.oneOf(
        r,
        x -> Generated.overlong(x, ID_CHARS, 128, 300),
        x -> Generated.string(x, "ab", 0, 5) + Generated.string(x, " ?#%\"<>{}@!*'é€&=+,;", 1, 5),
        x -> Generated.withControlCharacter(x, "po", "1"));
  }

  /** The parameter at fault and the query. */
  static List<String> badPageQuery(Random r) {
    return switch (r.nextInt(5)) {
      case 0 -> List.of("limit", "limit=" + Generated.notAnIntegerIn(r, 1, 1000));
      case 1 ->
          List.of(
              "afterId",
              "afterId="
                  + Generated.oneOf(
                      r,
                      x -> encode("-" + (1 + x.nextInt(1000))),
                      x -> "9" + Generated.string(x, "0123456789", 19, 30),
                      x -> encode(Generated.string(x, "abc.,", 1, 10))));
      case 2 -> {
        String field = Generated.pick(r, "createdFrom", "createdTo");
        yield List.of(
            field,
            field
                + "="
                + encode(
                    Generated.pick(
                        r,
                        "2026-01-01",
                        "2026-01-01T00:00:00",
                        "2026-13-01T00:00:00Z",
                        "yesterday",
                        "1700000000",
                        "2026-01-01T00:00:00Z" + Generated.controlCharacter(r))));
      }
      case 3 -> {
        String at = "2026-01-0" + (1 + r.nextInt(9)) + "T00:00:00Z";
        String before = "2025-12-" + (10 + r.nextInt(20)) + "T00:00:00Z";
        yield List.of(
            "createdTo", "createdFrom=" + at + "&createdTo=" + (r.nextBoolean() ? at : before));
      }
      default ->
          List.of(
              "limit", "limit=" + Generated.pick(r, "0", "-1", "1001", "2147483648", "1.0", "ten"));
    };
  }

  private static String encode(String text) {
    return java.net.URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static void assertProblem(HttpResponse<String> response, String code) {
    assertThat(response.statusCode()).isBetween(400, 499);
    assertThat(response.headers().firstValue("Content-Type"))
        .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
    assertThat(json(response).get("code").asString()).isEqualTo(code);
  }
}
