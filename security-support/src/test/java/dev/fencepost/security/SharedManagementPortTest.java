package dev.fencepost.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpMethod;

/**
 * A deployment that forgets {@code management.server.port}: health and the scrape would then sit
 * beside the API on the application's port, so they are not opened there; they need an OPERATOR
 * token like every other management endpoint.
 */
@SpringBootTest(
    classes = SharedManagementPortTest.App.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "management.endpoints.web.exposure.include=health,prometheus")
class SharedManagementPortTest extends ResourceServerTestBase {

  @LocalServerPort int port;

  @SpringBootApplication
  static class App {
    @Bean
    EndpointAccess endpoints() {
      return rules -> rules.authenticated(HttpMethod.GET, "/whoami");
    }
  }

  @Test
  void healthOnTheApplicationPortNeedsAnOperator() throws Exception {
    assertThat(get("/actuator/health", null).statusCode()).isEqualTo(401);
    assertThat(get("/actuator/health", keys.token("w1", FencepostRole.PAYOUT_WORKER)).statusCode())
        .isEqualTo(403);
    assertThat(get("/actuator/health", keys.token("ops", FencepostRole.OPERATOR)).statusCode())
        .isEqualTo(200);
  }

  private HttpResponse<String> get(String path, String token) throws Exception {
    return get(port, path, token);
  }
}
