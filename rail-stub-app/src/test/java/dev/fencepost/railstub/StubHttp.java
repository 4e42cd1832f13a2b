package dev.fencepost.railstub;

import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.http.TestHttp;
import dev.fencepost.testsupport.security.TestIssuer;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * A plain JDK HTTP client for talking to the stub as its callers do: payments and lookups with the
 * rail proxy's token, the admin surface with an operator's, unless built to send another or none.
 */
final class StubHttp {

  /** One issuer for this module's JVM; the stubs under test accept its tokens. */
  static final TestIssuer ISSUER = TestIssuer.start();

  private final TestHttp http;

  StubHttp(int port) {
    this(port, StubHttp::callerToken);
  }

  /** Requests carry the token {@code tokens} picks for their path (null: none). */
  StubHttp(int port, Function<String, String> tokens) {
    this.http =
        TestHttp.loopback(
            port, Duration.ofSeconds(10), request -> tokens.apply(request.uri().getPath()));
  }

  static StubHttp anonymous(int port) {
    return new StubHttp(port, path -> null);
  }

  static StubHttp as(int port, FencepostRole role) {
    return new StubHttp(port, path -> ISSUER.token(TestIssuer.subjectOf(role), role));
  }

  /** Makes the stub of a Spring test accept this module's issuer. */
  static void trustIssuer(DynamicPropertyRegistry registry) {
    registry.add("spring.security.oauth2.resourceserver.jwt.jwk-set-uri", ISSUER::jwkSetUri);
  }

  /** A client of the stub on {@code port}, whose movements and fault plan it has just cleared. */
  static StubHttp ofEmptyRail(int port) throws IOException, InterruptedException {
    StubHttp stub = new StubHttp(port);
    stub.delete("/rail/admin/movements");
    stub.delete("/rail/admin/faults");
    return stub;
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

  static String payment(String clientReference) {
    return "{\"clientReference\":\""
        + clientReference
        + "\",\"amountMinor\":1500,\"currency\":\"EUR\",\"beneficiaryRef\":\"ben-1\"}";
  }

  HttpResponse<String> post(String path, String body, Duration timeout)
      throws IOException, InterruptedException {
    return http.post(path, body, timeout);
  }

  HttpResponse<String> put(String path, String body) throws IOException, InterruptedException {
    return http.put(path, body);
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.get(path);
  }

  HttpResponse<String> delete(String path) throws IOException, InterruptedException {
    return http.delete(path);
  }

  HttpResponse<String> send(java.net.http.HttpRequest request)
      throws IOException, InterruptedException {
    return http.send(request);
  }

  /** Every movement the stub recorded for {@code clientReference}: the ground truth. */
  int movementsFor(String clientReference) throws IOException, InterruptedException {
    return TestHttp.json(get("/rail/admin/movements?clientReference=" + clientReference))
        .get("count")
        .asInt();
  }
}
