package dev.fencepost.railproxy;

import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.grants.TestGrants;
import dev.fencepost.testsupport.http.TestHttp;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Talks to the proxy over real HTTP, as the payout worker does. Each request carries the bearer
 * token its caller would hold (a submit the worker's, a read the reconciler's) unless it sets its
 * own Authorization header; {@link #anonymous} sends none.
 */
final class ProxyHttp {

  private final TestHttp http;

  ProxyHttp(int port) {
    this(port, ProxyHttp::callerToken);
  }

  /** Requests carry the token {@code tokens} picks for each (null: none). */
  ProxyHttp(int port, Function<HttpRequest, String> tokens) {
    this.http = TestHttp.loopback(port, Duration.ofSeconds(30), tokens);
  }

  /** A caller without credentials. */
  static ProxyHttp anonymous(int port) {
    return new ProxyHttp(port, request -> null);
  }

  /** A caller holding {@code role}, whatever it asks. */
  static ProxyHttp as(int port, FencepostRole role) {
    return new ProxyHttp(port, request -> TestIdentities.token(role));
  }

  private static String callerToken(HttpRequest request) {
    return TestIdentities.token(
        "POST".equals(request.method()) ? FencepostRole.PAYOUT_WORKER : FencepostRole.RECONCILER);
  }

  /** A valid submission body; tests change what they need. */
  static Map<String, Object> body(String payoutId, String accountId, long token) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("payoutId", payoutId);
    body.put("accountId", accountId);
    body.put("fencingToken", token);
    body.put("clientReference", "cref-" + payoutId);
    body.put("amountMinor", 2_500);
    body.put("currency", "EUR");
    body.put("beneficiaryRef", "ben-" + payoutId);
    // The lock server's signed grant for this account and token (ADR 0137), by the test key.
    body.put("grant", TestGrants.forAccount(accountId, token));
    return body;
  }

  HttpResponse<String> submit(String payoutId, String accountId, long token) {
    return post(
        "/v1/submissions", TestHttp.JSON.writeValueAsString(body(payoutId, accountId, token)));
  }

  HttpResponse<String> post(String path, String body) {
    return TestHttp.unchecked(() -> http.post(path, body));
  }

  HttpResponse<String> get(String path) {
    return TestHttp.unchecked(() -> http.get(path));
  }

  HttpResponse<String> send(HttpRequest request) {
    return TestHttp.unchecked(() -> http.send(request));
  }

  String base() {
    return http.base();
  }
}
