package dev.fencepost.batch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.generate.BadBatchJobCalls;
import dev.fencepost.testsupport.generate.Generated;
import dev.fencepost.testsupport.http.Refusals;
import dev.fencepost.testsupport.http.TestHttp;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import dev.fencepost.testsupport.security.TestIssuer;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Generated bad calls to the shared {@code /actuator/batchjobs/{jobName}} ({@link
 * BadBatchJobCalls}, seeded), by an operator so that they reach the endpoint. Each is a 4xx {@code
 * application/problem+json} with a stable code and batchdb has the same job instances, executions
 * and parameters after as before:
 *
 * <ul>
 *   <li>parameters that are not {@code key=value} pairs, with an empty key, a control character, a
 *       name over 100 or a value over 2,500 characters (batchdb's columns): 400 {@code
 *       INVALID_PARAMETERS};
 *   <li>parameters that are not a JSON string, or a body that is not a JSON object: 400 {@code
 *       INVALID_REQUEST} (the actuator cannot map it) or {@code INVALID_PARAMETERS};
 *   <li>an unknown, overlong or control-character job name: 404 {@code JOB_NOT_FOUND}, never looked
 *       up in batchdb when batchdb could not hold it (or 400 from Tomcat for an encoded NUL,
 *       problem+json on the management port too);
 *   <li>a listing limit that is not an integer in 1..200: 400 {@code INVALID_REQUEST}.
 * </ul>
 */
class BatchJobsEndpointBadInputTest {

  @RegisterExtension
  static EmbeddedPostgresExtension batchdb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/batchdb/db.changelog-master.yaml");

  static ConfigurableApplicationContext context;
  static TestHttp management;
  static final TestIssuer issuer = TestIssuer.start();

  @BeforeAll
  static void start() {
    context =
        SampleJobsApplication.start(
            SampleJobsApplication.SampleJob.class, batchdb, issuer, "--logging.level.root=WARN");
    String operator = issuer.token("operator-1", FencepostRole.OPERATOR);
    management =
        TestHttp.loopback(
            SampleJobsApplication.managementPort(context),
            Duration.ofSeconds(30),
            request -> operator);
  }

  @AfterAll
  static void stop() {
    if (context != null) {
      context.close();
    }
    issuer.close();
  }

  @Test
  void generatedBadLaunchesAndListingsAreRefusedAndLaunchNothing() {
    Generated.forAll(
        400,
        r -> BadBatchJobCalls.of(r, "sampleJob", null),
        call ->
            Refusals.assertRefusedWithoutChange(
                BatchJobsEndpointBadInputTest::batchdbSnapshot,
                () -> management.send(call.method(), call.path(), call.body())));
  }

  @Test
  void aParameterNameLongerThanBatchdbHoldsIs400BeforeAnyInstanceIsWritten() {
    String before = batchdbSnapshot();

    HttpResponse<String> refused =
        TestHttp.unchecked(
            () ->
                management.post(
                    "/actuator/batchjobs/sampleJob",
                    "{\"parameters\":\"" + "n".repeat(101) + "=x\"}"));

    assertThat(Refusals.assertRefused(refused)).isEqualTo("INVALID_PARAMETERS");
    assertThat(batchdbSnapshot()).isEqualTo(before);
  }

  @Test
  void aListingOfANameWithNulIsA404NotAFailedQuery() {
    HttpResponse<String> refused =
        TestHttp.unchecked(() -> management.get("/actuator/batchjobs/sample%01Job"));

    assertThat(Refusals.assertRefused(refused)).isEqualTo("JOB_NOT_FOUND");
  }

  private static String batchdbSnapshot() {
    return JdbcClient.create(batchdb.dataSource())
        .sql(
            """
            SELECT (SELECT count(*) FROM batch_job_instance) || '/' ||
                   (SELECT count(*) FROM batch_job_execution) || '/' ||
                   (SELECT count(*) FROM batch_job_execution_params)
            """)
        .query(String.class)
        .single();
  }
}
