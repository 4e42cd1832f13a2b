package dev.fencepost.railstub;

import static dev.fencepost.testsupport.generate.Generated.NOT_A_POSITIVE_LONG;
import static dev.fencepost.testsupport.generate.Generated.NOT_A_STRING;
import static dev.fencepost.testsupport.generate.Generated.anyString;
import static dev.fencepost.testsupport.generate.Generated.forAll;
import static dev.fencepost.testsupport.generate.Generated.notAJsonObject;
import static dev.fencepost.testsupport.generate.Generated.notAnIntegerIn;
import static dev.fencepost.testsupport.generate.Generated.oneOf;
import static dev.fencepost.testsupport.generate.Generated.overlong;
import static dev.fencepost.testsupport.generate.Generated.pick;
import static dev.fencepost.testsupport.generate.Generated.string;
import static dev.fencepost.testsupport.generate.Generated.withControlCharacter;
import static dev.fencepost.testsupport.http.Refusals.assertRefusedWithoutChange;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.generate.Generated;
import dev.fencepost.testsupport.http.TestHttp;
import dev.fencepost.testsupport.security.TestIssuer;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Generated bad input to every endpoint of the rail stub (seeded by {@code Generated}, so a failure
 * names its seed and case), each sent with the token of the caller the endpoint serves so the input
 * reaches the handler. Every case is answered with a 4xx {@code application/problem+json} carrying
 * a stable {@code code}, never a 5xx or a success, and changes nothing: the movement book and the
 * fault plan in force are the same after as before.
 *
 * <ul>
 *   <li>{@code POST /rail/payments}: a body that is not a JSON object, or has one field missing,
 *       null, of the wrong type, out of range or badly formed: 400 {@code INVALID_PAYMENT} naming
 *       the field ({@link PaymentRequest}); MVC's unreadable body: 400 {@code INVALID_REQUEST}; a
 *       body that is not {@code application/json}: 415 {@code UNSUPPORTED_MEDIA_TYPE}.
 *   <li>{@code GET /rail/payments}: a missing, overlong or badly formed {@code clientReference}:
 *       400.
 *   <li>{@code PUT /rail/admin/faults}: unknown or {@code NONE} modes, rates outside [0, 1] or
 *       adding up to more than 1, overrides with a blank, overlong, badly formed or
 *       control-character reference or a bad mode, a negative or non-integer lag, an unknown
 *       property, a number sent as a string: 400 {@code INVALID_FAULT_PLAN}, or 400 {@code
 *       INVALID_REQUEST} where Jackson cannot read the body; the plan in force stays.
 *   <li>{@code GET /rail/admin/movements}: a limit outside 1..1000 or not an integer, an
 *       unparseable or reversed window, a badly formed client reference or cursor: 400.
 *   <li>A method no rule declares on a path: 403 {@code FORBIDDEN} before routing (ADR 0145).
 *   <li>The management port, as an operator: an endpoint no rule declares is 403 {@code FORBIDDEN},
 *       a malformed metrics tag is 400 {@code INVALID_REQUEST}, a method an endpoint does not serve
 *       is 405 {@code METHOD_NOT_ALLOWED}, an unknown metric, tag or health group is 404 {@code
 *       NOT_FOUND} (the actuator's bare 404 given a body by web-support's {@code
 *       EmptyErrorBodyFilter}), and a path Tomcat refuses (an encoded NUL) is 400 problem+json too.
 * </ul>
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    useMainMethod = SpringBootTest.UseMainMethod.ALWAYS,
    properties = {"logging.level.root=WARN"})
class RailStubBadInputTest {

  private static final int CASES = Generated.cases(100, 300);
  private static final String REFERENCE_CHARS =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:._-";
  private static final String[] MODES = {
    "DECLINE",
    "DELAY",
    "TIMEOUT_BEFORE_SETTLE",
    "TIMEOUT_AFTER_SETTLE",
    "ERROR_AFTER_SETTLE",
    "RESET"
  };

  @LocalServerPort int port;
  @LocalManagementPort int managementPort;
  @Autowired MovementBook book;
  @Autowired FaultDecider decider;

  StubHttp stub;
  TestHttp management;

  @DynamicPropertySource
  static void issuer(DynamicPropertyRegistry registry) {
    StubHttp.trustIssuer(registry);
  }

  @BeforeEach
  void aRailWithOneMovementAndAPlan() throws Exception {
    stub = StubHttp.ofEmptyRail(port);
    management =
        TestHttp.loopback(
            managementPort,
            Duration.ofSeconds(10),
            request ->
                StubHttp.ISSUER.token(
                    TestIssuer.subjectOf(FencepostRole.OPERATOR), FencepostRole.OPERATOR));
    // Something to lose: one movement, and a plan other than the start-up one.
    assertThat(
            stub.post("/rail/payments", StubHttp.payment("cref-kept"), Duration.ofSeconds(10))
                .statusCode())
        .isEqualTo(201);
    assertThat(
            stub.put(
                    "/rail/admin/faults",
                    "{\"rates\":{\"DECLINE\":0.25},\"overrides\":{\"cref-x\":\"RESET\"},"
                        + "\"lookupLagMillis\":7}")
                .statusCode())
        .isEqualTo(200);
  }

  @Test
  void aBadPaymentIsRefusedAndMovesNothing() {
    forAll(
        CASES,
        RailStubBadInputTest::badPayment,
        body ->
            refusedWithoutChange(() -> stub.post("/rail/payments", body, Duration.ofSeconds(10))));
  }

  @Test
  void aPaymentThatIsNotJsonByContentTypeIsA415AndMovesNothing() {
    forAll(
        50,
        r -> pick(r, "text/plain", "application/xml", "application/x-www-form-urlencoded", "*/*"),
        type -> {
          HttpResponse<String> response =
              refusedWithoutChange(
                  () ->
                      stub.send(
                          HttpRequest.newBuilder(URI.create(base() + "/rail/payments"))
                              .header("Content-Type", type)
                              .POST(HttpRequest.BodyPublishers.ofString(StubHttp.payment("c-1")))
                              .build()));
          assertThat(response.statusCode()).isEqualTo(415);
        });
  }

  @Test
  void aLookupOfABadClientReferenceIsRefused() {
    forAll(
        CASES,
        r -> oneOf(r, x -> "", x -> "?clientReference=" + encode(badReference(x))),
        query -> refusedWithoutChange(() -> stub.get("/rail/payments" + query)));
  }

  @Test
  void aBadFaultPlanIsRefusedAndThePlanInForceStays() {
    forAll(
        CASES,
        RailStubBadInputTest::badFaultPlan,
        body -> refusedWithoutChange(() -> stub.put("/rail/admin/faults", body)));
  }

  @Test
  void aBadStatementQueryIsRefused() {
    forAll(
        CASES,
        RailStubBadInputTest::badStatementQuery,
        query -> refusedWithoutChange(() -> stub.get("/rail/admin/movements?" + query)));
  }

  @Test
  void aMethodNoRuleDeclaresIsRefusedBeforeRouting() {
    forAll(
        100,
        r ->
            pick(
                r,
                List.of("DELETE", "/rail/payments"),
                List.of("PUT", "/rail/payments"),
                List.of("PATCH", "/rail/payments"),
                List.of("POST", "/rail/admin/faults"),
                List.of("PATCH", "/rail/admin/faults"),
                List.of("POST", "/rail/admin/movements"),
                List.of("PATCH", "/rail/admin/movements"),
                List.of("GET", "/rail/" + string(r, "abc/", 1, 20)),
                List.of("POST", "/" + string(r, "abc", 1, 20))),
        call -> {
          HttpResponse<String> response =
              refusedWithoutChange(
                  () ->
                      stub.send(
                          HttpRequest.newBuilder(URI.create(base() + call.get(1)))
                              .method(call.get(0), HttpRequest.BodyPublishers.ofString("{}"))
                              .header("Content-Type", "application/json")
                              .build()));
          // 403 before routing; the firewall's 400 for a path it refuses outright (say, "//").
          assertThat(response.statusCode()).isIn(400, 403);
        });
  }

  @Test
  void badInputToTheManagementPortIsRefused() {
    forAll(
        100,
        RailStubBadInputTest::badManagementCall,
        call -> refusedWithoutChange(() -> management.send(call.get(0), call.get(1), call.get(2))));
  }

  /** The actuator answers these with a bare status; they were empty-bodied 404s and HTML 400s. */
  @Test
  void anUnknownMetricOrHealthGroupOrARefusedPathOnTheManagementPortIsProblemJson() {
    for (String path :
        List.of(
            "/actuator/metrics/no.such.metric",
            "/actuator/health/nosuchgroup",
            "/actuator/metrics/jvm.memory.used?tag=nosuch:x",
            "/actuator/metrics/a%00b")) {
      HttpResponse<String> response = TestHttp.unchecked(() -> management.get(path));
      assertThat(dev.fencepost.testsupport.http.Refusals.assertRefused(response))
          .as(path)
          .isIn("NOT_FOUND", "INVALID_REQUEST");
    }
  }

  // --- generators -------------------------------------------------------------------------

  static String badPayment(Random r) {
    String ref = "\"cref-" + r.nextInt(1000) + "\"";
    String amount = Integer.toString(1 + r.nextInt(10_000));
    String currency = "\"EUR\"";
    String ben = "\"ben-1\"";
    return switch (r.nextInt(9)) {
      case 0 -> notAJsonObject(r);
      case 1 -> payment(badJsonReference(r), amount, currency, ben);
      case 2 -> payment(ref, pick(r, NOT_A_POSITIVE_LONG), currency, ben);
      case 3 -> payment(ref, amount, badCurrency(r), ben);
      case 4 -> payment(ref, amount, currency, badJsonReference(r));
      case 5 -> payment(ref, amount, currency, ben).replace(pick(r, missing()), "\"x-removed\"");
      case 6 -> "{\"payment\":" + payment(ref, amount, currency, ben) + "}";
      case 7 -> "[" + payment(ref, amount, currency, ben) + "]";
      default -> payment(ref, amount, currency, ben).replace("}", ",}");
    };
  }

  private static String[] missing() {
    return new String[] {
      "\"clientReference\"", "\"amountMinor\"", "\"currency\"", "\"beneficiaryRef\""
    };
  }

  private static String payment(String ref, String amount, String currency, String ben) {
    return "{\"clientReference\":"
        + ref
        + ",\"amountMinor\":"
        + amount
        + ",\"currency\":"
        + currency
        + ",\"beneficiaryRef\":"
        + ben
        + "}";
  }

  private static String badCurrency(Random r) {
    return oneOf(
        r,
        x -> pick(x, NOT_A_STRING),
        x -> "\"" + pick(x, "eur", "EURO", "", "E", "EU R", "€€€", "12A") + "\"",
        x -> "\"" + string(x, "ABC", 4, 30) + "\"",
        x -> json(withControlCharacter(x, "EU", "")));
  }

  /** A JSON value that is not a well-formed reference. */
  private static String badJsonReference(Random r) {
    return oneOf(r, x -> pick(x, NOT_A_STRING), x -> json(badReference(x)));
  }

  /** A reference outside {@code [A-Za-z0-9:._-]{1,128}}. */
  static String badReference(Random r) {
    return oneOf(
        r,
        x -> "",
        x -> overlong(x, REFERENCE_CHARS, 128, 300),
        x -> string(x, "ab", 0, 5) + string(x, " /\\?#%\"<>{}@!*'é€&=+,;", 1, 5),
        x -> withControlCharacter(x, "cref", "1"));
  }

  static String badFaultPlan(Random r) {
    return switch (r.nextInt(12)) {
      case 0 -> notAJsonObject(r);
      case 1 -> "{\"rates\":{\"" + badModeName(r) + "\":0.1}}";
      case 2 -> "{\"rates\":{\"" + pick(r, MODES) + "\":" + rateOutsideTheUnitInterval(r) + "}}";
      case 3 ->
          "{\"rates\":{\""
              + pick(r, MODES)
              + "\":"
              + pick(r, "\"abc\"", "[]", "{}", "true", "\"0.5\"", "\"NaN\"", "null", "\"\"")
              + "}}";
      case 4 -> "{\"rates\":{\"DECLINE\":0.6,\"RESET\":" + (0.41 + r.nextDouble() * 0.59) + "}}";
      case 5 -> "{\"rates\":" + pick(r, "[]", "[0.1]", "\"DECLINE\"", "5", "true") + "}";
      case 6 -> "{\"overrides\":{" + json(badReference(r)) + ":\"RESET\"}}";
      case 7 ->
          "{\"overrides\":{\"cref-1\":"
              + oneOf(
                  r, x -> json(badModeName(x).replace("NONE", "NONE_")), x -> pick(x, NOT_A_STRING))
              + "}}";
      case 8 -> "{\"overrides\":" + pick(r, "[]", "[\"cref-1\"]", "\"RESET\"", "5", "true") + "}";
      case 9 -> "{\"lookupLagMillis\":" + pick(r, NOT_A_POSITIVE_LONG.subList(0, 6)) + "}";
      case 10 ->
          "{\"lookupLagMillis\":"
              + pick(r, "-1", "-1000", "-9223372036854775808", "1.5", "99999999999999999999")
              + "}";
      default -> "{\"" + pick(r, "rate", "Rates", "override", "lag", "lookupLag", "x") + "\":{}}";
    };
  }

  private static String badModeName(Random r) {
    return oneOf(
        r,
        x -> "NONE",
        x -> pick(x, MODES).toLowerCase(java.util.Locale.ROOT),
        x -> string(x, "ABCXYZ_", 1, 20),
        x -> "");
  }

  private static String rateOutsideTheUnitInterval(Random r) {
    return oneOf(
        r,
        x -> Double.toString(-x.nextDouble() - Double.MIN_VALUE),
        x -> Double.toString(1 + x.nextDouble() + 1e-6),
        x -> pick(x, "-0.0001", "1.0001", "1e308", "-1e308", "1e309", "2"));
  }

  static String badStatementQuery(Random r) {
    String window = "receivedFrom=2026-01-01T00:00:00Z&receivedTo=2026-01-02T00:00:00Z";
    return switch (r.nextInt(6)) {
      case 0 -> "limit=" + notAnIntegerIn(r, 1, 1000);
      case 1 ->
          "limit=10&"
              + pick(r, "receivedFrom=", "receivedTo=")
              + encode(
                  oneOf(
                      r,
                      x -> pick(x, "yesterday", "2026-13-01T00:00:00Z", "2026-01-01", "1.5", "T"),
                      x -> anyString(x, 30) + "x"));
      case 2 -> {
        String at = "2026-01-0" + (1 + r.nextInt(9)) + "T00:00:00Z";
        String before = "2025-12-" + (10 + r.nextInt(20)) + "T00:00:00Z";
        yield "limit=10&receivedFrom=" + at + "&receivedTo=" + (r.nextBoolean() ? at : before);
      }
      case 3 -> "limit=10&" + window + "&clientReference=" + encode(badReference(r));
      case 4 -> "clientReference=" + encode(badReference(r));
      default -> "limit=10&after=" + encode(badReference(r));
    };
  }

  static List<String> badManagementCall(Random r) {
    return switch (r.nextInt(5)) {
      case 0 -> Arrays.asList("GET", "/actuator/" + string(r, "abcxyz", 1, 20), null);
      case 1 -> Arrays.asList("GET", "/actuator/metrics/" + string(r, "abcxyz.", 1, 30), null);
      case 2 ->
          Arrays.asList(
              "GET",
              "/actuator/metrics/jvm.memory.used?tag="
                  + encode(pick(r, "area", "nosuch", "value", "nosuchtag:x")),
              null);
      case 3 -> Arrays.asList("GET", "/actuator/health/" + string(r, "abcxyz", 1, 20), null);
      default ->
          Arrays.asList(
              pick(r, "POST", "DELETE", "PUT"),
              pick(r, "/actuator/health", "/actuator/metrics", "/actuator/info"),
              "{}");
    };
  }

  // --- helpers ----------------------------------------------------------------------------

  private HttpResponse<String> refusedWithoutChange(TestHttp.Call<HttpResponse<String>> call) {
    return assertRefusedWithoutChange(this::snapshot, call);
  }

  /** The movement book and the plan in force, as text. */
  private String snapshot() {
    return book.snapshot() + " / " + decider.plan();
  }

  private String base() {
    return "http://127.0.0.1:" + port;
  }

  private static String json(String text) {
    return TestHttp.JSON.writeValueAsString(text);
  }

  private static String encode(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
