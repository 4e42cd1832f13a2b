package dev.fencepost.railproxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpHeaders;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A caller's kept-alive connection stays open for as many requests as it sends (ADR 0232): the
 * proxy started as {@code main} starts it, on a real port, answers 250 requests on one TCP
 * connection without ever asking to close it. Tomcat's default would close it at the 100th.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    useMainMethod = SpringBootTest.UseMainMethod.ALWAYS)
class KeptConnectionsTest {

  @RegisterExtension
  static EmbeddedPostgresExtension proxydb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/proxydb/db.changelog-master.yaml");

  static final WireMockServer rail = ProxyUnderTest.settlingRail("R");

  @LocalServerPort int port;

  @DynamicPropertySource
  static void wire(DynamicPropertyRegistry registry) {
    ProxyUnderTest.register(registry, proxydb);
    registry.add("fencepost.rail.base-url", rail::baseUrl);
  }

  @AfterAll
  static void stopRail() {
    rail.stop();
  }

  @Test
  void aCallersConnectionIsKeptPastAHundredRequests() throws IOException {
    List<String> closing = new ArrayList<>();
    // One connection at most: every request goes on the same kept-alive connection unless an
    // answer closes it.
    try (CloseableHttpClient client =
        HttpClients.custom()
            .setConnectionManager(
                PoolingHttpClientConnectionManagerBuilder.create()
                    .setMaxConnTotal(1)
                    .setMaxConnPerRoute(1)
                    .build())
            .disableAutomaticRetries()
            .build()) {
      for (int i = 1; i <= 250; i++) {
        int answer = i;
        // No token: the answer is 401 and nothing is recorded, which is all this test needs of
        // a request (ProxyAccessTest covers what a refused call changes).
        boolean closes =
            client.execute(
                new HttpGet("http://127.0.0.1:" + port + "/v1/submissions/po-1"),
                response -> {
                  assertThat(response.getCode()).as("answer %d", answer).isEqualTo(401);
                  EntityUtils.consume(response.getEntity());
                  Header connection = response.getFirstHeader(HttpHeaders.CONNECTION);
                  return connection != null && "close".equalsIgnoreCase(connection.getValue());
                });
        if (closes) {
          closing.add("answer " + i);
          break;
        }
      }
    }
    assertThat(closing).as("answers that closed the connection").isEmpty();
  }
}
