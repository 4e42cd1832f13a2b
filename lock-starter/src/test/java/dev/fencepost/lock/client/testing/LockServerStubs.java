package dev.fencepost.lock.client.testing;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.junit5.WireMockExtension;

/**
 * A WireMock stand-in for the lock server, and the JSON bodies it answers with
 * (docs/lock-server.md).
 */
public final class LockServerStubs {

  private LockServerStubs() {}

  public static final String PROBLEM_JSON = "application/problem+json";

  /**
   * The stand-in on a free loopback port. Register it as a static field: WireMock's extension
   * starts it before the class's tests, forgets every stub and request before each test, and stops
   * it after the last.
   */
  public static WireMockExtension server() {
    return WireMockExtension.newInstance()
        .options(options().dynamicPort().bindAddress("127.0.0.1"))
        .build();
  }

  /** An answer with a JSON body. */
  public static ResponseDefinitionBuilder json(int status, String body) {
    return answer(status, "application/json", body);
  }

  /** An answer with an {@code application/problem+json} body, as the lock server reports errors. */
  public static ResponseDefinitionBuilder problemAnswer(int status, String body) {
    return answer(status, PROBLEM_JSON, body);
  }

  private static ResponseDefinitionBuilder answer(int status, String contentType, String body) {
    return aResponse().withStatus(status).withHeader("Content-Type", contentType).withBody(body);
  }

  public static String session(String id, long ttlMillis) {
    return """
        {"sessionId":"%s","owner":"stub","ttlMillis":%d,"expiresAt":"2026-01-01T00:00:00Z"}"""
        .formatted(id, ttlMillis);
  }

  /**
   * A grant whose lease is {@code leaseMillis} by the server's clock. Only the difference between
   * acquiredAt and expiresAt matters to the client, never either instant against its own clock.
   */
  public static String grant(String key, String sessionId, long token, long leaseMillis) {
    return """
        {"key":"%s","owner":"stub","sessionId":"%s","token":%d,
         "acquiredAt":"2026-01-01T00:00:00Z","expiresAt":"%s","addedLater":{"x":1}}"""
        .formatted(
            key,
            sessionId,
            token,
            java.time.Instant.parse("2026-01-01T00:00:00Z").plusMillis(leaseMillis));
  }

  public static String problem(int status, String code, String detail) {
    return """
        {"type":"https://fencepost.dev/problems/%s","title":"t","status":%d,"detail":"%s","code":"%s"}"""
        .formatted(code.toLowerCase(), status, detail, code);
  }
}
