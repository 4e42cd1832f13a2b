package dev.fencepost.railproxy;

import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static dev.fencepost.testsupport.http.TestHttp.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.testsupport.grants.TestGrants;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The built runnable jar starts with only {@code --spring.datasource.*} (proxydb's runtime role,
 * the database migrated by the extension as its owner) and {@code --fencepost.rail.base-url}, and
 * submits.
 */
class RailProxyJarIT {

  @RegisterExtension
  static EmbeddedPostgresExtension proxydb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/proxydb/db.changelog-master.yaml");

  private JavaProcess proxyProcess;
  private WireMockServer rail;

  @AfterEach
  void stop() throws Exception {
    if (proxyProcess != null) {
      proxyProcess.close();
    }
    if (rail != null) {
      rail.stop();
    }
  }

  @Test
  void theExecJarAppliesProxydbAndSubmitsOnce() throws Exception {
    rail = ProxyUnderTest.settlingRail("RAIL-JAR");
    proxyProcess =
        start(
            Path.of(System.getProperty("proxy.exec.jar")),
            "--spring.datasource.url=" + proxydb.jdbcUrl(),
            "--spring.datasource.username=" + proxydb.database().runtime().username(),
            "--spring.datasource.password=" + proxydb.database().runtime().password(),
            "--fencepost.rail.base-url=" + rail.baseUrl(),
            TestGrants.staticProxyArg(),
            TestIdentities.proxyArgs().get(0),
            TestIdentities.proxyArgs().get(1));
    ProxyHttp proxy = new ProxyHttp(proxyProcess.port());
    await()
        .atMost(Duration.ofSeconds(120))
        .ignoreExceptions()
        .until(
            () ->
                new ProxyHttp(proxyProcess.managementPort()).get("/actuator/health").statusCode()
                    == 200);

    var response = proxy.submit("po-jar", "acc-jar", 4);

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(json(response).get("outcome").asString()).isEqualTo("ACKED");
    assertThat(json(proxy.get("/v1/submissions/po-jar")).get("railReference").asString())
        .isEqualTo("RAIL-JAR");
    assertThat(proxy.submit("po-jar", "acc-jar", 4).statusCode()).isEqualTo(409);
    rail.verify(1, postRequestedFor(urlEqualTo("/rail/payments")));
    assertThat(
            new JdbcTemplate(proxydb.dataSource())
                .queryForObject(
                    "SELECT count(*) FROM databasechangelog WHERE filename LIKE '%proxydb%'",
                    Long.class))
        .isPositive();
    assertThat(output(proxyProcess)).contains("\"event\":\"rail.submission.outcome_recorded\"");
  }

  /** The runnable jar as its own process on a free loopback port, logging to a file. */
  private static JavaProcess start(Path jar, String... args) {
    return JavaProcess.jar("rail-proxy", jar).httpPort(0).args(List.of(args)).start();
  }

  private static String output(JavaProcess process) {
    try {
      return Files.readString(process.log());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
