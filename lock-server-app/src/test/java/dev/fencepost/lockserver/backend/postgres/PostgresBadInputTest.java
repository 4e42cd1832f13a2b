package dev.fencepost.lockserver.backend.postgres;

import static dev.fencepost.testsupport.generate.Generated.anyString;
import static dev.fencepost.testsupport.generate.Generated.forAll;
import static dev.fencepost.testsupport.generate.Generated.oneOf;
import static dev.fencepost.testsupport.generate.Generated.outside;
import static dev.fencepost.testsupport.generate.Generated.pick;
import static dev.fencepost.testsupport.generate.Generated.string;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.lockserver.TestIdentities;
import dev.fencepost.lockserver.http.LockServerClient;
import dev.fencepost.lockserver.http.LockServerClient.Response;
import dev.fencepost.testsupport.generate.Generated;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Generated bad input, 150 cases per endpoint (500 in the long tier): the lock server answers every
 * one with a 4xx problem carrying a code, never a 5xx, and lockdb does not change (no session,
 * lock, waiter, event, audit row, or token drawn).
 */
class PostgresBadInputTest {

  private static final int CASES = Generated.cases(150, 500);
  private static final String[] WRONG_TYPES = {
    "\"abc\"",
    "[]",
    "{}",
    "true",
    "1.5",
    "-0.0",
    "1e309",
    "99999999999999999999999",
    "\"\"",
    "[1,2]",
    "null"
  };
  private static final String[] NON_STRING_TYPES = {
    "[]", "{}", "true", "1.5", "7", "[1,2]", "\"\"", "\"  \""
  };

  @RegisterExtension
  static EmbeddedPostgresExtension lockdb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/lockdb/db.changelog-master.yaml");

  private static ConfigurableApplicationContext server;
  private static LockServerClient client;
  private static String liveSession;

  @BeforeAll
  static void start() {
    server =
        PostgresLockServer.start(
            lockdb,
            "--fencepost.lock.max-ttl=5m",
            "--fencepost.lock.max-wait=30s",
            "--logging.level.root=WARN");
    int port = ((WebServerApplicationContext) server).getWebServer().getPort();
    client = new LockServerClient("http://127.0.0.1:" + port);
    // One real session the generators reuse, so the bad part of a request is the only bad part.
    liveSession = client.newSession("bad-input-probe");
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void createSessionAnswers4xxAndWritesNothing() {
    forAll(
        CASES,
        r ->
            oneOf(
                r,
                PostgresBadInputTest::junk,
                x -> "{\"owner\":\"w\",\"ttlMillis\":" + outside(x, 1_000, 300_000) + "}",
                x -> "{\"owner\":\"w\",\"ttlMillis\":" + pick(x, WRONG_TYPES) + "}",
                x -> "{\"owner\":" + pick(x, NON_STRING_TYPES) + ",\"ttlMillis\":5000}",
                x -> "{\"owner\":\"" + "o".repeat(201 + x.nextInt(50)) + "\",\"ttlMillis\":5000}",
                x -> "{\"ttlMillis\":5000}"),
        body -> assertRejectedWithoutChange(() -> client.post("/v1/sessions", body)));
  }

  @Test
  void acquireAnswers4xxAndWritesNothing() {
    forAll(
        CASES,
        r ->
            oneOf(
                r,
                x -> new String[] {badKey(x), "{\"sessionId\":\"" + liveSession + "\"}"},
                x -> new String[] {goodKey(x), junk(x)},
                x ->
                    new String[] {
                      goodKey(x),
                      "{\"sessionId\":\""
                          + liveSession
                          + "\",\"waitMillis\":"
                          + outside(x, 0, 30_000)
                          + "}"
                    },
                x -> new String[] {goodKey(x), "{\"sessionId\":" + pick(x, NON_STRING_TYPES) + "}"},
                x ->
                    new String[] {
                      goodKey(x), "{\"sessionId\":\"" + UUID.randomUUID() + "\",\"waitMillis\":0}"
                    }),
        req ->
            assertRejectedWithoutChange(
                () -> client.post("/v1/locks/" + req[0] + "/acquire", req[1])));
  }

  @Test
  void renewAnswers4xxAndWritesNothing() {
    forAll(
        CASES,
        r -> new String[] {goodKey(r), badGrantBody(r)},
        req ->
            assertRejectedWithoutChange(
                () -> client.post("/v1/locks/" + req[0] + "/renew", req[1])));
  }

  @Test
  void releaseAnswers4xxAndWritesNothing() {
    forAll(
        CASES,
        r -> new String[] {goodKey(r), badGrantBody(r)},
        req ->
            assertRejectedWithoutChange(
                () -> client.post("/v1/locks/" + req[0] + "/release", req[1])));
  }

  @Test
  void keepaliveOfAnythingButALiveSessionAnswers4xxAndWritesNothing() {
    forAll(
        CASES,
        r ->
            oneOf(
                r,
                x -> string(x, "abcdef0123456789-", 1, 60),
                x -> UUID.randomUUID().toString(),
                x -> URLEncoder.encode(anyString(x, 40), StandardCharsets.UTF_8)),
        id ->
            assertRejectedWithoutChange(
                () -> client.post("/v1/sessions/" + (id.isEmpty() ? "x" : id) + "/keepalive", "")));
  }

  @Test
  void inspectOfABadKeyAnswers4xx() {
    forAll(
        CASES,
        PostgresBadInputTest::badKey,
        key -> {
          Response response = client.get("/v1/locks/" + key);
          assertThat(response.status()).as(response.body()).isBetween(400, 499);
        });
  }

  @Test
  void revokeAnswers4xxAndWritesNothing() {
    forAll(
        CASES,
        r ->
            oneOf(
                r,
                x -> new String[] {badKey(x), "{\"operator\":\"jane\",\"reason\":\"stuck\"}"},
                x -> new String[] {goodKey(x), junk(x)},
                x -> new String[] {goodKey(x), "{\"operator\":\"jane\"}"},
                // The operator is the token's subject (ADR 0131): naming another is refused.
                x -> new String[] {goodKey(x), "{\"operator\":\"john\",\"reason\":\"stuck\"}"},
                x ->
                    new String[] {
                      goodKey(x),
                      "{\"operator\":" + pick(x, NON_STRING_TYPES) + ",\"reason\":\"r\"}"
                    }),
        req ->
            assertRejectedWithoutChange(
                () ->
                    client
                        .as(TestIdentities.operator("jane"))
                        .post("/v1/admin/locks/" + req[0] + "/revoke", req[1])));
  }

  /**
   * NUL cannot be stored in PostgreSQL text (it was a 500); tab, line breaks and the other control
   * characters have no place in an owner or a reason (ADR 0166). Each is a 400 naming the field.
   */
  @Test
  void freeTextWithAControlCharacterAnswers400NamingTheFieldAndWritesNothing() {
    String[] controls = {"\\u0000", "\\t", "\\n", "\\r", "\\u001b", "\\u007f", "\\u0085"};
    for (String control : controls) {
      assertRefusedField(
          () -> client.post("/v1/sessions", "{\"owner\":\"w" + control + "x\",\"ttlMillis\":5000}"),
          "owner");
      assertRefusedField(
          () ->
              client
                  .as(TestIdentities.operator("jane"))
                  .post(
                      "/v1/admin/locks/payout:acc-1/revoke",
                      "{\"reason\":\"stuck" + control + "\"}"),
          "reason");
    }
  }

  private static void assertRefusedField(Supplier<Response> call, String field) {
    String before = snapshot();
    Response response = call.get();
    assertThat(response.status()).as(response.body()).isEqualTo(400);
    assertThat(response.code()).isEqualTo("INVALID_REQUEST");
    assertThat(response.json().get("field").asString()).isEqualTo(field);
    assertThat(snapshot()).isEqualTo(before);
  }

  private static void assertRejectedWithoutChange(Supplier<Response> call) {
    String before = snapshot();
    Response response = call.get();
    assertThat(response.status()).as(response.body()).isBetween(400, 499);
    assertThat(response.code()).as(response.body()).isNotBlank();
    assertThat(snapshot()).isEqualTo(before);
  }

  private static String snapshot() {
    return LockdbSnapshot.of(lockdb.dataSource());
  }

  // --- generators -------------------------------------------------------------------------

  private static String goodKey(Random r) {
    return "payout:" + string(r, "abcXYZ019._-", 1, 40);
  }

  /** Keys outside [A-Za-z0-9:._-]{1,128}, URL-encoded so they reach the server as sent. */
  private static String badKey(Random r) {
    String key =
        oneOf(
            r,
            x -> string(x, "ab:", 0, 5) + string(x, "$ !*'()@&=+,;é\"<>{}|^`~", 1, 5),
            x -> string(x, "abc", 129, 300),
            x -> anyString(x, 20) + "\u0000");
    return URLEncoder.encode(key, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static String badGrantBody(Random r) {
    return oneOf(
        r,
        PostgresBadInputTest::junk,
        x -> "{\"sessionId\":\"" + liveSession + "\",\"token\":" + -x.nextInt(1000) + "}",
        x -> "{\"sessionId\":\"" + liveSession + "\",\"token\":" + pick(x, WRONG_TYPES) + "}",
        // Well-formed but not the holder's grant: refused (409/404), nothing changes.
        x ->
            "{\"sessionId\":\""
                + liveSession
                + "\",\"token\":"
                + (1 + (x.nextLong() & Long.MAX_VALUE) % Long.MAX_VALUE)
                + "}",
        x -> "{\"sessionId\":\"" + liveSession + "\"}",
        x -> "{\"sessionId\":" + pick(x, NON_STRING_TYPES) + ",\"token\":5}");
  }

  private static String junk(Random r) {
    return oneOf(
        r,
        x -> anyString(x, 200),
        x -> string(x, "{}[]\":,0123456789truefalsn ", 0, 60),
        x -> pick(x, "", "null", "[]", "\"x\"", "{", "{\"sessionId\":", "{\"a\":1}{", "{}"));
  }
}
