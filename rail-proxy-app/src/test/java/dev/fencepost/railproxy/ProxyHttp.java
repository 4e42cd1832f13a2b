package dev.fencepost.railproxy;

import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.grants.TestGrants;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Talks to the proxy over real HTTP, as the payout worker does. Each request carries the bearer
 * token its caller would hold (a submit the worker's, a read the reconciler's) unless it sets its
 * own Authorization header; {@link #anonymous} sends none.
 */
final class ProxyHttp {

  static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private final String base;
  private final Function<HttpRequest, String> tokens;

  ProxyHttp(int port) {
    this(port, ProxyHttp::callerToken);
  }

  /** Requests carry the token {@code tokens} picks for each (null: none). */
  ProxyHttp(int port, Function<HttpRequest, String> tokens) {
    this.base = "http://127.0.0.1:" + port;
    this.tokens = tokens;
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
    return post("/v1/submissions", JSON.writeValueAsString(body(payoutId, accountId, token)));
  }

  HttpResponse<String> post(String path, String body) {
    return send(
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build());
  }

  HttpResponse<String> get(String path) {
    return send(
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(30))
            .GET()
            .build());
  }

  HttpResponse<String> send(HttpRequest request) {
    String token =
        request.headers().firstValue("Authorization").isPresent() ? null : tokens.apply(request);
    HttpRequest authorized =
        token == null
            ? request
            : HttpRequest.newBuilder(request, (name, value) -> true)
                .header("Authorization", "Bearer " + token)
                .build();
    try {
      return client.send(authorized, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  String base() {
    return base;
  }

  static JsonNode json(HttpResponse<String> response) {
    return JSON.readTree(response.body());
  }
}
