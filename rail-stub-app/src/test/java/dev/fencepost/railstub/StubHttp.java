package dev.fencepost.railstub;

import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.security.TestIssuer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A plain JDK HTTP client for talking to the stub as its callers do: payments and lookups with the
 * rail proxy's token, the admin surface with an operator's, unless built to send another or none.
 */
final class StubHttp {

  static final JsonMapper JSON = JsonMapper.builder().build();

  /** One issuer for this module's JVM; the stubs under test accept its tokens. */
  static final TestIssuer ISSUER = TestIssuer.start();

  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private final String base;
  private final Function<String, String> tokens;

  StubHttp(int port) {
    this(port, StubHttp::callerToken);
  }

  /** Requests carry the token {@code tokens} picks for their path (null: none). */
  StubHttp(int port, Function<String, String> tokens) {
    this.base = "http://127.0.0.1:" + port;
    this.tokens = tokens;
  }

  static StubHttp anonymous(int port) {
    return new StubHttp(port, path -> null);
  }

  static StubHttp as(int port, FencepostRole role) {
    return new StubHttp(port, path -> ISSUER.token(TestIssuer.subjectOf(role), role));
  }

  /** Arguments that make a stub accept this module's issuer. */
  static List<String> issuerArgs() {
    return ISSUER.resourceServerArgs();
  }

  private static String callerToken(String path) {
    FencepostRole role =
        path.startsWith("/rail/admin") ? FencepostRole.OPERATOR : FencepostRole.RAIL_PROXY;
    return ISSUER.token(TestIssuer.subjectOf(role), role);
  }

  private HttpResponse<String> send(String path, HttpRequest.Builder request)
      throws IOException, InterruptedException {
    String token = tokens.apply(path);
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  static String payment(String clientReference) {
    return "{\"clientReference\":\""
        + clientReference
        + "\",\"amountMinor\":1500,\"currency\":\"EUR\",\"beneficiaryRef\":\"ben-1\"}";
  }

  HttpResponse<String> post(String path, String body, Duration timeout)
      throws IOException, InterruptedException {
    return send(
        path,
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  HttpResponse<String> put(String path, String body) throws IOException, InterruptedException {
    return send(
        path,
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(body)));
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return send(
        path,
        HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10)).GET());
  }

  HttpResponse<String> delete(String path) throws IOException, InterruptedException {
    return send(
        path,
        HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10)).DELETE());
  }

  /** Every movement the stub recorded for {@code clientReference}: the ground truth. */
  int movementsFor(String clientReference) throws IOException, InterruptedException {
    return json(get("/rail/admin/movements?clientReference=" + clientReference))
        .get("count")
        .asInt();
  }

  static JsonNode json(HttpResponse<String> response) {
    return JSON.readTree(response.body());
  }
}
