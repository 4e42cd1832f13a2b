package dev.fencepost.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import dev.fencepost.testsupport.security.TestIssuer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The shared batch plumbing on a real batchdb, migrated from our changeset as its owner (Boot's
 * script stays off) and used as its runtime role (ADR 0160): the actuator endpoint launches a job
 * and lists its executions from the job repository, to an operator only (ADR 0147).
 */
class BatchJobsEndpointTest {

  @RegisterExtension
  static EmbeddedPostgresExtension batchdb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/batchdb/db.changelog-master.yaml");

  static ConfigurableApplicationContext context;
  static String base;
  static final HttpClient http = HttpClient.newHttpClient();
  static final TestIssuer issuer = TestIssuer.start();
  static final String OPERATOR = issuer.token("operator-1", FencepostRole.OPERATOR);

  @BeforeAll
  static void start() {
    context = SampleJobsApplication.start(SampleJobsApplication.SampleJob.class, batchdb, issuer);
    base =
        "http://127.0.0.1:"
            + context.getEnvironment().getProperty("local.management.port")
            + "/actuator/batchjobs/";
  }

  @AfterAll
  static void stop() {
    SampleJobsApplication.SampleJob.release.countDown();
    if (context != null) {
      context.close();
    }
    issuer.close();
  }

  @Test
  void theBatchSchemaComesFromOurChangesetNotFromBootsScript() {
    JdbcClient jdbc = JdbcClient.create(batchdb.dataSource());
    assertThat(
            jdbc.sql("SELECT count(*) FROM databasechangelog WHERE filename LIKE '%batchdb%'")
                .query(Long.class)
                .single())
        .isPositive();
    assertThat(
            jdbc.sql("SELECT count(*) FROM information_schema.tables WHERE table_name = ?")
                .param("batch_job_execution")
                .query(Long.class)
                .single())
        .isEqualTo(1);
  }

  @Test
  void aLaunchAnswers202AtOnceAndTheExecutionIsListedRunningThenCompleted() throws Exception {
    SampleJobsApplication.SampleJob.release = new CountDownLatch(1);
    HttpResponse<String> launched = post("sampleJob", "{\"parameters\":\"origin=test,window=1h\"}");
    assertThat(launched.statusCode()).isEqualTo(202);
    assertThat(launched.body())
        .contains("\"jobName\":\"sampleJob\"")
        .contains("\"origin\":\"test\"")
        .contains("\"window\":\"1h\"");
    String id = launched.body().replaceAll(".*\"executionId\":(\\d+).*", "$1");

    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(get("sampleJob").body())
                    .contains("\"executionId\":" + id + ",")
                    .contains("\"status\":\"STARTED\""));
    SampleJobsApplication.SampleJob.release.countDown();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              HttpResponse<String> list = get("sampleJob");
              assertThat(list.statusCode()).isEqualTo(200);
              assertThat(list.body())
                  .contains("\"executionId\":" + id + ",")
                  .contains("\"status\":\"COMPLETED\"")
                  .contains("\"exitCode\":\"COMPLETED\"")
                  .contains("\"launch.id\"");
            });
  }

  @Test
  void twoLaunchesAtOnceAreTwoInstancesNotACollision() throws Exception {
    SampleJobsApplication.SampleJob.release = new CountDownLatch(0);
    HttpResponse<String> first = post("sampleJob", "");
    HttpResponse<String> second = post("sampleJob", "");
    assertThat(first.statusCode()).isEqualTo(202);
    assertThat(second.statusCode()).isEqualTo(202);
    assertThat(first.body().replaceAll(".*\"instanceId\":(\\d+).*", "$1"))
        .isNotEqualTo(second.body().replaceAll(".*\"instanceId\":(\\d+).*", "$1"));
  }

  @Test
  void malformedParametersAre400AndLaunchNothing() throws Exception {
    HttpResponse<String> refused = post("sampleJob", "{\"parameters\":\"no-equals-sign\"}");
    assertThat(refused.statusCode()).isEqualTo(400);
    assertThat(refused.body()).contains("INVALID_PARAMETERS");
  }

  /** jobdb cannot store NUL: it was a failed launch; now a 400 before anything starts. */
  @Test
  void parametersWithAControlCharacterAre400AndLaunchNothing() throws Exception {
    long executions = executions();
    for (String control : new String[] {"\\u0000", "\\n", "\\u001b"}) {
      HttpResponse<String> refused =
          post("sampleJob", "{\"parameters\":\"origin=te" + control + "st\"}");
      assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
      assertThat(refused.body()).contains("INVALID_PARAMETERS");
    }
    assertThat(executions()).isEqualTo(executions);
  }

  /** The actuator's bodies are bounded like every other (fencepost.web.max-request-body-size). */
  @Test
  void aBodyOverTheLimitIs413ProblemJsonAndLaunchesNothing() throws Exception {
    long executions = executions();
    HttpResponse<String> refused =
        post("sampleJob", "{\"parameters\":\"a=" + "x".repeat(17 * 1024) + "\"}");
    assertThat(refused.statusCode()).isEqualTo(413);
    assertThat(refused.headers().firstValue("Content-Type"))
        .hasValue("application/problem+json;charset=UTF-8");
    assertThat(refused.body()).contains("\"code\":\"PAYLOAD_TOO_LARGE\"");
    assertThat(executions()).isEqualTo(executions);
  }

  @Test
  void anUnknownJobIs404ForLaunchAndList() throws Exception {
    assertThat(post("noSuchJob", "").statusCode()).isEqualTo(404);
    assertThat(get("noSuchJob").statusCode()).isEqualTo(404);
  }

  @Test
  void launchingAndListingNeedAnOperatorAndARefusedLaunchStartsNothing() throws Exception {
    SampleJobsApplication.SampleJob.release = new CountDownLatch(0);
    long executions = executions();
    String reconciler = issuer.token("reconciler", FencepostRole.RECONCILER);
    String worker = issuer.token("payout-worker", FencepostRole.PAYOUT_WORKER);

    assertThat(post("sampleJob", "", null).statusCode()).isEqualTo(401);
    assertThat(post("sampleJob", "", reconciler).statusCode()).isEqualTo(403);
    assertThat(post("sampleJob", "", worker).statusCode()).isEqualTo(403);
    try (TestIssuer stranger = TestIssuer.start()) {
      String untrusted = stranger.token("operator-1", FencepostRole.OPERATOR);
      assertThat(post("sampleJob", "", untrusted).statusCode()).isEqualTo(401);
    }
    assertThat(get("sampleJob", null).statusCode()).isEqualTo(401);
    assertThat(get("sampleJob", reconciler).statusCode()).isEqualTo(403);
    assertThat(executions()).as("no refused launch created an execution").isEqualTo(executions);

    assertThat(post("sampleJob", "", OPERATOR).statusCode()).isEqualTo(202);
    assertThat(get("sampleJob", OPERATOR).statusCode()).isEqualTo(200);
    assertThat(executions()).isEqualTo(executions + 1);
  }

  @Test
  void healthStaysOpenWithoutAToken() throws Exception {
    HttpResponse<String> health =
        http.send(
            HttpRequest.newBuilder(URI.create(base.replace("batchjobs/", "health"))).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(health.statusCode()).isEqualTo(200);
  }

  private static long executions() {
    return JdbcClient.create(batchdb.dataSource())
        .sql("SELECT count(*) FROM batch_job_execution")
        .query(Long.class)
        .single();
  }

  private static HttpResponse<String> post(String job, String body) throws Exception {
    return post(job, body, OPERATOR);
  }

  private static HttpResponse<String> get(String job) throws Exception {
    return get(job, OPERATOR);
  }

  private static HttpRequest.Builder bearer(HttpRequest.Builder request, String token) {
    return token == null ? request : request.header("Authorization", "Bearer " + token);
  }

  private static HttpResponse<String> post(String job, String body, String token) throws Exception {
    return http.send(
        bearer(HttpRequest.newBuilder(URI.create(base + job)), token)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body.isEmpty() ? "{}" : body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> get(String job, String token) throws Exception {
    return http.send(
        bearer(HttpRequest.newBuilder(URI.create(base + job)), token).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
