package dev.fencepost.lock.client.testing;

/** JSON bodies a WireMock stand-in for the lock server answers with (docs/lock-server.md). */
public final class LockServerStubs {

  private LockServerStubs() {}

  public static final String PROBLEM_JSON = "application/problem+json";

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
