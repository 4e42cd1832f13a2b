package dev.fencepost.railproxy;

import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static dev.fencepost.testsupport.http.TestHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.fencepost.testsupport.generate.Generated;
import dev.fencepost.testsupport.http.TestHttp;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
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
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Bad input is a 4xx problem with a stable code, and changes nothing: no row in any proxydb table
 * and no request to the rail. Hand-picked cases first, then generated bodies (seeded,
 * reproducible).
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

  private static void assertProblem(HttpResponse<String> response, String code) {
    assertThat(response.statusCode()).isBetween(400, 499);
    assertThat(response.headers().firstValue("Content-Type"))
        .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
    assertThat(json(response).get("code").asString()).isEqualTo(code);
  }
}
