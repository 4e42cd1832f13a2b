package dev.fencepost.batch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import dev.fencepost.testsupport.security.TestIssuer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * With the actuator on a management port of its own, a child context with a server of its own
 * serves it; the request body bound covers that server too (web-support's management context
 * configuration), so an oversized body there is a 413 and launches nothing.
 */
class ManagementPortBodyLimitTest {

  @RegisterExtension
  static EmbeddedPostgresExtension batchdb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/batchdb/db.changelog-master.yaml");

  static ConfigurableApplicationContext context;
  static final TestIssuer issuer = TestIssuer.start();
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() {
    SampleJobsApplication.SampleJob.release = new java.util.concurrent.CountDownLatch(0);
    context = SampleJobsApplication.start(SampleJobsApplication.SampleJob.class, batchdb, issuer);
  }

  @AfterAll
  static void stop() {
    if (context != null) {
      context.close();
    }
    issuer.close();
  }

  @Test
  void anOversizedBodyOnTheManagementPortIs413AndLaunchesNothing() throws Exception {
    String port = context.getEnvironment().getProperty("local.management.port");
    String base = "http://127.0.0.1:" + port + "/actuator/batchjobs/sampleJob";
    String operator = issuer.token("operator-1", FencepostRole.OPERATOR);

    HttpResponse<String> refused =
        http.send(
            HttpRequest.newBuilder(URI.create(base))
                .header("Authorization", "Bearer " + operator)
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"parameters\":\"a=" + "x".repeat(17 * 1024) + "\"}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(413);
    assertThat(refused.body()).contains("\"code\":\"PAYLOAD_TOO_LARGE\"");
    assertThat(
            JdbcClient.create(batchdb.dataSource())
                .sql("SELECT count(*) FROM batch_job_execution")
                .query(Long.class)
                .single())
        .isZero();
    // The same port still launches a job with a body within the limit.
    HttpResponse<String> launched =
        http.send(
            HttpRequest.newBuilder(URI.create(base))
                .header("Authorization", "Bearer " + operator)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(launched.statusCode()).as(launched.body()).isEqualTo(202);
  }
}
