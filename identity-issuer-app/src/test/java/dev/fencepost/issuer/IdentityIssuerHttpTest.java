package dev.fencepost.issuer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;

/** The issuer over real HTTP, started as {@code main} starts it, with its shipped clients. */
class IdentityIssuerHttpTest {

  static ConfigurableApplicationContext issuer;
  static String baseUrl;
  static String managementUrl;
  static final HttpClient http = HttpClient.newHttpClient();

  static final List<String> WORKER_RECONCILER_PROXY_SECRETS =
      List.of(
          "--fencepost.issuer.clients.payout-worker.secret=worker-secret",
          "--fencepost.issuer.clients.reconciler.secret=reconciler-secret",
          "--fencepost.issuer.clients.rail-proxy.secret=proxy-secret");
  static final List<String> OPERATOR_SECRET =
      List.of("--fencepost.issuer.clients.operator.secret=operator-secret");

  /** Random API and management ports, then {@code secrets}. */
  @SafeVarargs
  static String[] withPorts(List<String>... secrets) {
    List<String> args = new ArrayList<>(List.of("--server.port=0", "--management.server.port=0"));
    for (List<String> some : secrets) {
      args.addAll(some);
    }
    return args.toArray(String[]::new);
  }

  @BeforeAll
  static void start() {
    issuer =
        IdentityIssuerApplication.application()
            .run(withPorts(WORKER_RECONCILER_PROXY_SECRETS, OPERATOR_SECRET));
    baseUrl = "http://127.0.0.1:" + issuer.getEnvironment().getProperty("local.server.port");
    managementUrl =
        "http://127.0.0.1:" + issuer.getEnvironment().getProperty("local.management.port");
  }

  @AfterAll
  static void stop() {
    issuer.close();
  }

  @Test
  void clientGetsAShortLivedTokenWithItsRolesAndTheAudience() throws Exception {
    HttpResponse<String> response = token("payout-worker", "worker-secret");
    assertThat(response.statusCode()).isEqualTo(200);

    Jwt jwt =
        NimbusJwtDecoder.withJwkSetUri(baseUrl + "/oauth2/jwks")
            .build()
            .decode(accessToken(response));
    assertThat(jwt.getSubject()).isEqualTo("payout-worker");
    assertThat(jwt.getAudience()).containsExactly("fencepost");
    assertThat(jwt.getClaimAsStringList("roles")).containsExactly("PAYOUT_WORKER");
    assertThat(Duration.between(jwt.getIssuedAt(), jwt.getExpiresAt()))
        .isEqualTo(Duration.ofMinutes(5));
  }

  @Test
  void eachClientGetsOnlyItsOwnRoles() throws Exception {
    HttpResponse<String> response = token("operator", "operator-secret");
    Jwt jwt =
        NimbusJwtDecoder.withJwkSetUri(baseUrl + "/oauth2/jwks")
            .build()
            .decode(accessToken(response));
    assertThat(jwt.getClaimAsStringList("roles")).containsExactly("OPERATOR");
  }

  @Test
  void wrongSecretIsUnauthorized() throws Exception {
    assertThat(token("payout-worker", "operator-secret").statusCode()).isEqualTo(401);
    assertThat(token("payout-worker", "worker-secret").statusCode()).isEqualTo(200);
  }

  @Test
  void unknownClientIsUnauthorized() throws Exception {
    assertThat(token("intruder", "worker-secret").statusCode()).isEqualTo(401);
  }

  @Test
  void nothingButTheIssuerEndpointsIsServed() throws Exception {
    HttpResponse<String> other =
        http.send(
            // The authorization endpoint now serves people signing in (OperatorSignInTest).
            HttpRequest.newBuilder(URI.create(baseUrl + "/anything-else")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(other.statusCode()).isIn(401, 403);
    HttpResponse<String> health =
        http.send(
            HttpRequest.newBuilder(URI.create(managementUrl + "/actuator/health")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(health.statusCode()).isEqualTo(200);
    HttpResponse<String> healthOnTheIssuerPort =
        http.send(
            HttpRequest.newBuilder(URI.create(baseUrl + "/actuator/health")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(healthOnTheIssuerPort.statusCode()).isIn(401, 403, 404);
  }

  @Test
  void aClientWithoutASecretStopsTheStart() {
    assertThatThrownBy(
            () ->
                IdentityIssuerApplication.application()
                    .run(withPorts(WORKER_RECONCILER_PROXY_SECRETS)))
        .rootCause()
        .hasMessageContaining("no secret for client(s) [operator]");
  }

  @Test
  void theShippedConfigurationCarriesNoSecret() throws Exception {
    try (var in = getClass().getResourceAsStream("/identity-issuer.yaml")) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).doesNotContain("secret:");
    }
  }

  private static HttpResponse<String> token(String clientId, String secret) throws Exception {
    String basic =
        Base64.getEncoder()
            .encodeToString((clientId + ":" + secret).getBytes(StandardCharsets.UTF_8));
    return http.send(
        HttpRequest.newBuilder(URI.create(baseUrl + "/oauth2/token"))
            .header("Authorization", "Basic " + basic)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials"))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String accessToken(HttpResponse<String> response) {
    Matcher m = Pattern.compile("\"access_token\"\\s*:\\s*\"([^\"]+)\"").matcher(response.body());
    assertThat(m.find()).as(response.body()).isTrue();
    return m.group(1);
  }
}
