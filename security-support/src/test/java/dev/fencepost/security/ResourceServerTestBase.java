package dev.fencepost.security;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * What this module's HTTP tests share: an issuer whose keys the application under test trusts, and
 * a plain GET on one of its loopback ports with an optional bearer token.
 */
abstract class ResourceServerTestBase {

  /**
   * One issuer for every test class of this JVM, as test-support's TestIssuer is: the Spring
   * contexts that trust it stay cached after their class, so it is never stopped.
   */
  static final LocalKeys keys = new LocalKeys();

  static final HttpClient http = HttpClient.newHttpClient();

  @DynamicPropertySource
  static void issuer(DynamicPropertyRegistry registry) {
    registry.add("spring.security.oauth2.resourceserver.jwt.jwk-set-uri", keys::jwkSetUri);
  }

  /** GET {@code path} on {@code port}, with {@code token} as the bearer token unless null. */
  static HttpResponse<String> get(int port, String path, String token) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
