package dev.fencepost.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.jwk.ECKey;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpMethod;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The resource server over a real port: each refusal with its code, and beside it the request that
 * differs in one thing and passes.
 */
@SpringBootTest(
    classes = ResourceServerHttpTest.App.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "management.endpoints.web.exposure.include=health,metrics",
      // A port of their own, as every Fencepost application has; RANDOM_PORT makes it random too.
      "management.server.port=0",
      // Colons escaped: the inlined properties are in .properties syntax.
      "fencepost.security.subject-roles[system\\:serviceaccount\\:pay\\:worker]=PAYOUT_WORKER"
    })
class ResourceServerHttpTest extends ResourceServerTestBase {

  @LocalServerPort int port;
  @LocalManagementPort int managementPort;

  @SpringBootApplication
  static class App {
    @Bean
    EndpointAccess endpoints() {
      return rules ->
          rules
              .allow(HttpMethod.GET, "/work", FencepostRole.PAYOUT_WORKER)
              .authenticated(HttpMethod.GET, "/whoami")
              .open(HttpMethod.GET, "/public-keys");
    }

    @RestController
    static class Endpoints {
      @GetMapping("/work")
      String work() {
        return "done";
      }

      @GetMapping("/whoami")
      String whoami() {
        return CurrentCaller.requireName();
      }

      @GetMapping("/public-keys")
      String publicKeys() {
        return "keys";
      }

      /** Exists, but no rule names it. */
      @GetMapping("/undeclared")
      String undeclared() {
        return "should never be reached";
      }
    }
  }

  @Test
  void noTokenIsUnauthenticatedProblem() throws Exception {
    HttpResponse<String> response = get("/work", null);
    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(response.body())
        .contains("\"code\":\"UNAUTHENTICATED\"")
        .contains("\"type\":\"https://fencepost.dev/problems/unauthenticated\"")
        .contains("\"title\":\"Unauthorized\"")
        .contains("\"status\":401");
    assertThat(response.headers().firstValue("WWW-Authenticate"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
  }

  @Test
  void openEndpointIsServedWithoutAToken() throws Exception {
    assertServed("/public-keys", null, "keys");
  }

  @Test
  void rightRoleIsServed() throws Exception {
    assertServed("/work", keys.token("w1", FencepostRole.PAYOUT_WORKER), "done");
  }

  @Test
  void wrongRoleIsForbiddenProblem() throws Exception {
    HttpResponse<String> response = get("/work", keys.token("r1", FencepostRole.RECONCILER));
    assertThat(response.statusCode()).isEqualTo(403);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(response.body()).contains("\"code\":\"FORBIDDEN\"");
  }

  @Test
  void tokenSignedByAnotherKeyWithTheSameKeyIdIsUnauthenticated() throws Exception {
    ECKey impostor = LocalKeys.generate(keys.key().getKeyID());
    String forged = workerToken(impostor, "fencepost", Instant.now());
    assertThat(get("/work", forged).statusCode()).isEqualTo(401);
    String genuine = workerToken(keys.key(), "fencepost", Instant.now());
    assertThat(get("/work", genuine).statusCode()).isEqualTo(200);
  }

  @Test
  void expiredTokenIsUnauthenticated() throws Exception {
    // Past the validator's 60 s clock skew.
    String expired =
        workerToken(keys.key(), "fencepost", Instant.now().minus(Duration.ofMinutes(10)));
    HttpResponse<String> response = get("/work", expired);
    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(response.body()).contains("\"code\":\"UNAUTHENTICATED\"");
  }

  @Test
  void tokenForAnotherAudienceIsUnauthenticated() throws Exception {
    String elsewhere = workerToken(keys.key(), "billing", Instant.now());
    assertThat(get("/work", elsewhere).statusCode()).isEqualTo(401);
  }

  @Test
  void undeclaredPathIsDeniedEvenToEveryRole() throws Exception {
    String everything = keys.token("root", FencepostRole.values());
    assertThat(get("/undeclared", everything).statusCode()).isEqualTo(403);
    assertThat(get("/undeclared", null).statusCode()).isEqualTo(401);
    assertThat(get("/work", everything).statusCode()).isEqualTo(200);
  }

  @Test
  void serviceAccountSubjectGetsItsMappedRoles() throws Exception {
    assertThat(get("/work", keys.token("system:serviceaccount:pay:worker")).statusCode())
        .isEqualTo(200);
    assertThat(get("/work", keys.token("system:serviceaccount:pay:other")).statusCode())
        .isEqualTo(403);
  }

  @Test
  void callerNameIsTheTokenSubject() throws Exception {
    assertServed("/whoami", keys.token("ops-alice", FencepostRole.OPERATOR), "ops-alice");
  }

  @Test
  void healthIsOpenOnTheManagementPortAndOtherManagementEndpointsNeedOperator() throws Exception {
    assertThat(get(managementPort, "/actuator/health", null).statusCode()).isEqualTo(200);
    assertThat(get(managementPort, "/actuator/metrics", null).statusCode()).isEqualTo(401);
    assertThat(
            get(managementPort, "/actuator/metrics", keys.token("w1", FencepostRole.PAYOUT_WORKER))
                .statusCode())
        .isEqualTo(403);
    assertThat(
            get(managementPort, "/actuator/metrics", keys.token("ops", FencepostRole.OPERATOR))
                .statusCode())
        .isEqualTo(200);
  }

  @Test
  void managementEndpointsAreNotServedOnTheApplicationPort() throws Exception {
    assertThat(managementPort).isNotEqualTo(port);
    assertThat(get("/actuator/health", null).statusCode()).isEqualTo(401);
    assertThat(get("/actuator/health", keys.token("ops", FencepostRole.OPERATOR)).statusCode())
        .isIn(403, 404);
  }

  /**
   * The header is read by our resolver (ADR 0223): the scheme in any case is served, and a header
   * that names the scheme but is not one token after one space is refused as an invalid token, with
   * nothing served.
   */
  @Test
  void aMalformedBearerHeaderIsAnInvalidTokenAndTheSchemeInAnyCaseIsServed() throws Exception {
    String token = keys.token("w1", FencepostRole.PAYOUT_WORKER);

    String lowerCase = rawGet("/work", "bearer " + token);
    String twoSpaces = rawGet("/work", "Bearer  " + token);
    String trailingText = rawGet("/work", "Bearer " + token + ", x");

    assertThat(lowerCase).startsWith("HTTP/1.1 200").contains("done");
    for (String refused : new String[] {twoSpaces, trailingText}) {
      assertThat(refused)
          .startsWith("HTTP/1.1 401")
          .contains("error=\"invalid_token\"")
          .contains("\"code\":\"UNAUTHENTICATED\"")
          .doesNotContain("done");
    }
  }

  /**
   * The firewall's header rule, checked by our predicate (ADR 0192), still refuses: a C1 control
   * character (byte 0x85, which Tomcat passes on as U+0085) after the bearer token is a 400
   * problem, and the same request without it is served.
   */
  @Test
  void aControlCharacterInTheAuthorizationHeaderIsRefusedByTheFirewall() throws Exception {
    String token = keys.token("w1", FencepostRole.PAYOUT_WORKER);

    String refused = rawGet("/work", "Bearer " + token + "\u0085");
    String served = rawGet("/work", "Bearer " + token);

    assertThat(refused).startsWith("HTTP/1.1 400").contains("\"code\":\"INVALID_REQUEST\"");
    assertThat(refused).doesNotContain("done");
    assertThat(served).startsWith("HTTP/1.1 200").contains("done");
  }

  /** A GET over a plain socket: the JDK's client will not send a byte outside visible ASCII. */
  private String rawGet(String path, String authorization) throws Exception {
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      String request =
          "GET "
              + path
              + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: "
              + authorization
              + "\r\nConnection: close\r\n\r\n";
      socket
          .getOutputStream()
          .write(request.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
      return new String(
          socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
    }
  }

  /** GET {@code path} (with {@code token}, if any) is answered 200 with {@code body}. */
  private void assertServed(String path, String token, String body) throws Exception {
    HttpResponse<String> response = get(path, token);
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo(body);
  }

  /** A PAYOUT_WORKER token for "w1", valid five minutes from {@code issuedAt}. */
  private static String workerToken(ECKey key, String audience, Instant issuedAt) {
    return LocalKeys.mint(
        key, "w1", audience, issuedAt, Duration.ofMinutes(5), FencepostRole.PAYOUT_WORKER);
  }

  private HttpResponse<String> get(String path, String token) throws Exception {
    return get(port, path, token);
  }
}
