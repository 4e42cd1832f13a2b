package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.security.BearerTokenSource;
import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.generate.BadBatchJobCalls;
import dev.fencepost.testsupport.generate.Generated;
import dev.fencepost.testsupport.http.Refusals;
import dev.fencepost.testsupport.http.TestHttp;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Operations: an operator launches payoutJob by hand with {@code POST
 * /actuator/batchjobs/payoutJob} and follows it with {@code GET}, which reads the job repository.
 * Bad input to either (generated, seeded) is a 4xx problem+json with a stable code: 400 {@code
 * INVALID_PARAMETERS} for parameters that are not {@code key=value} pairs or that batchdb could not
 * hold, 400 {@code INVALID_REQUEST} for a body or a limit the endpoint cannot read, 404 {@code
 * JOB_NOT_FOUND} for any other job name; and it runs nothing.
 */
class BatchJobsEndpointTest {

  static Platform platform;
  static ConfigurableApplicationContext worker;
  static String endpoint;
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() {
    platform = Platform.shared();
    worker =
        platform.worker(
            "--spring.main.web-application-type=servlet",
            "--server.port=0",
            "--management.server.port=0",
            "--management.endpoints.web.exposure.include=batchjobs,health");
    endpoint =
        "http://127.0.0.1:"
            + worker.getEnvironment().getProperty("local.management.port")
            + "/actuator/batchjobs/payoutJob";
  }

  @AfterAll
  static void stop() {
    worker.close();
  }

  @Test
  void aHandLaunchRunsTheJobAndTheListingShowsItsCounts() throws Exception {
    List<Payout> payouts = platform.accountWithPayouts("ops", 10_000, 2, 1_000);

    HttpResponse<String> launched =
        http.send(
            HttpRequest.newBuilder(URI.create(endpoint))
                .header("Content-Type", "application/json")
                .header(
                    "Authorization",
                    "Bearer " + platform.tokens(FencepostRole.OPERATOR).currentToken())
                .POST(HttpRequest.BodyPublishers.ofString("{\"parameters\":\"origin=operator\"}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(launched.statusCode()).isEqualTo(202);
    String id = launched.body().replaceAll(".*\"executionId\":(\\d+).*", "$1");
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              String listing = platform.get(endpoint);
              assertThat(listing)
                  .contains("\"executionId\":" + id + ",")
                  .contains("\"status\":\"COMPLETED\"")
                  .contains("POSTED=")
                  .contains("\"origin\":\"operator\"");
            });
    for (Payout payout : payouts) {
      assertThat(platform.reload(payout).state()).isEqualTo(PayoutState.POSTED);
    }
  }

  @Test
  void onlyAnOperatorMayLaunchAndARefusedLaunchRunsNothing() throws Exception {
    List<Payout> payouts = platform.accountWithPayouts("ops-refused", 10_000, 1, 1_000);
    long executions = executions();

    assertThat(launch(null)).isEqualTo(401);
    assertThat(launch(platform.tokens(FencepostRole.RECONCILER))).isEqualTo(403);
    assertThat(launch(platform.tokens(FencepostRole.PAYOUT_WORKER))).isEqualTo(403);

    assertThat(executions()).as("no refused launch created an execution").isEqualTo(executions);
    assertThat(platform.reload(payouts.get(0)).state()).isEqualTo(PayoutState.PENDING);
  }

  /**
   * Generated bad launches and listings (batch-support's refusals, {@link BadBatchJobCalls}), by an
   * operator: each is a 4xx problem+json with a stable code, and neither batchdb's job rows nor
   * paydb's payouts change, so no payout was executed.
   */
  @Test
  void generatedBadLaunchesAndListingsAreRefusedAndRunNothing() {
    platform.accountWithPayouts("ops-bad-input", 10_000, 1, 1_000);
    String base = endpoint.substring(0, endpoint.indexOf("/actuator/"));
    TestHttp operator =
        new TestHttp(
            http,
            base,
            Duration.ofSeconds(30),
            request -> platform.tokens(FencepostRole.OPERATOR).currentToken());
    Generated.forAll(
        150,
        r -> BadBatchJobCalls.of(r, "payoutJob", null),
        call ->
            Refusals.assertRefusedWithoutChange(
                () -> executions() + "/" + payouts(),
                () -> operator.send(call.method(), call.path(), call.body())));
  }

  private static String payouts() {
    return JdbcClient.create(platform.services.paydb().dataSource())
        .sql("SELECT string_agg(t::text, '|' ORDER BY t::text) FROM payout t")
        .query(String.class)
        .optional()
        .orElse("");
  }

  private static int launch(BearerTokenSource tokens) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(endpoint))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{}"));
    if (tokens != null) {
      request.header("Authorization", "Bearer " + tokens.currentToken());
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString()).statusCode();
  }

  private static long executions() {
    return JdbcClient.create(platform.services.batchdb().dataSource())
        .sql("SELECT count(*) FROM batch_job_execution")
        .query(Long.class)
        .single();
  }
}
