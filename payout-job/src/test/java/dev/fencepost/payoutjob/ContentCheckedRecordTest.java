package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payoutjob.PayoutFailpoint.Point;
import dev.fencepost.payoutjob.RecoveryTest.WorkerDied;
import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.grants.TestGrants;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.json.JsonMapper;

/**
 * ADR 0140: a proxy record under a payout's id is acted on only when it is that payout. Somebody
 * submits a real payout's id first, through the real proxy to the real rail stub, with another
 * beneficiary or amount; the worker that then submits the payout (409 DUPLICATE_SUBMISSION) or
 * recovers it (the record found by {@code GET /v1/submissions/{payoutId}}) never records RAIL_ACKED
 * and never posts: the payout is RAIL_AMBIGUOUS for an operator, the ledger and the balance are
 * untouched, and the rail saw only the other submission. A duplicate that is the payout still posts
 * as before (FR-18, FR-24).
 */
@Tag("FR-18")
@Tag("FR-24")
@Tag("FR-23")
class ContentCheckedRecordTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final long FUNDING = 50_000;
  private static final long AMOUNT = 4_200;

  static Platform platform;
  static ConfigurableApplicationContext worker;

  @BeforeAll
  static void start() {
    platform = Platform.shared();
    worker = platform.worker();
  }

  @AfterAll
  static void stop() {
    worker.close();
  }

  @Test
  void aDuplicateAnswerWithAnotherBeneficiaryIsNeitherAckedNorPosted() {
    Payout payout = payout("dup-beneficiary");
    submitFirst(payout, AMOUNT, "ben-somebody-else");

    PayoutResult result = worker.getBean(PayoutExecutor.class).execute(payout);

    assertThat(result.outcome()).isEqualTo(PayoutOutcome.CONTENT_MISMATCH);
    assertThat(result.detail()).contains("beneficiaryRef");
    assertLeftForAnOperator(payout);
  }

  @Test
  void aDuplicateAnswerWithAnotherAmountIsNeitherAckedNorPosted() {
    Payout payout = payout("dup-amount");
    submitFirst(payout, AMOUNT * 10, payout.beneficiaryRef());

    PayoutResult result = worker.getBean(PayoutExecutor.class).execute(payout);

    assertThat(result.outcome()).isEqualTo(PayoutOutcome.CONTENT_MISMATCH);
    assertThat(result.detail()).contains("amountMinor").doesNotContain("beneficiaryRef");
    assertLeftForAnOperator(payout);
  }

  @Test
  @Tag("UC-04")
  void aRecordFoundAtRecoveryWithAnotherBeneficiaryIsNeitherAckedNorPosted() {
    Payout payout = payout("found-beneficiary");
    ConfigurableApplicationContext doomed =
        platform.worker(
            context ->
                context.registerBean(
                    "payoutFailpoint",
                    PayoutFailpoint.class,
                    () ->
                        (reached, p) -> {
                          if (reached == Point.CLAIMED) {
                            throw new WorkerDied(reached);
                          }
                        }));
    try {
      assertThatThrownBy(() -> doomed.getBean(PayoutExecutor.class).execute(payout))
          .isInstanceOf(WorkerDied.class);
    } finally {
      doomed.close();
    }
    assertThat(platform.reload(payout).state()).isEqualTo(PayoutState.CLAIMED);
    submitFirst(payout, AMOUNT, "ben-somebody-else");

    PayoutResult result = worker.getBean(PayoutExecutor.class).execute(payout);

    assertThat(result.outcome()).isEqualTo(PayoutOutcome.CONTENT_MISMATCH);
    assertThat(result.detail()).startsWith("record").contains("beneficiaryRef");
    assertLeftForAnOperator(payout);
  }

  @Test
  void aDuplicateAnswerThatIsThisPayoutIsPostedAsBefore() {
    Payout payout = payout("dup-same");
    submitFirst(payout, AMOUNT, payout.beneficiaryRef());

    PayoutResult result = worker.getBean(PayoutExecutor.class).execute(payout);

    assertThat(result.outcome()).isEqualTo(PayoutOutcome.POSTED);
    Payout done = platform.reload(payout);
    assertThat(done.state()).isEqualTo(PayoutState.POSTED);
    assertThat(platform.movements(payout.id())).isEqualTo(1);
    assertThat(platform.submissions(payout.id())).isEqualTo(1);
    assertThat(platform.payments.account(payout.accountId()).balanceMinor())
        .isEqualTo(FUNDING - AMOUNT);
  }

  private Payout payout(String prefix) {
    return platform.accountWithPayouts(prefix, FUNDING, 1, AMOUNT).get(0);
  }

  private void assertLeftForAnOperator(Payout payout) {
    Payout left = platform.reload(payout);
    assertThat(left.state()).isEqualTo(PayoutState.RAIL_AMBIGUOUS);
    assertThat(left.railReference()).isNull();
    assertThat(platform.payments.account(payout.accountId()).balanceMinor()).isEqualTo(FUNDING);
    JdbcClient paydb = JdbcClient.create(platform.services.paydb().dataSource());
    assertThat(
            paydb
                .sql("SELECT count(*) FROM ledger_group WHERE payout_id = ?::uuid")
                .param(payout.id().toString())
                .query(Long.class)
                .single())
        .as("no posting")
        .isZero();
    assertThat(
            paydb
                .sql(
                    "SELECT count(*) FROM audit_event WHERE payout_id = ?::uuid"
                        + " AND to_state IN ('RAIL_ACKED', 'POSTED')")
                .param(payout.id().toString())
                .query(Long.class)
                .single())
        .as("never RAIL_ACKED")
        .isZero();
    // The rail moved only the other submission: ours was refused by the proxy and never re-sent.
    assertThat(platform.movements(payout.id())).isEqualTo(1);
    assertThat(platform.submissions(payout.id())).isEqualTo(1);
    assertThat(
            worker
                .getBean(MeterRegistry.class)
                .counter("fencepost.payout.job.outcomes", "outcome", "CONTENT_MISMATCH")
                .count())
        .isPositive();
    // Never retried: a later run leaves it where it is.
    assertThat(worker.getBean(PayoutExecutor.class).execute(left).outcome())
        .isEqualTo(PayoutOutcome.LEFT_AMBIGUOUS);
    assertThat(platform.movements(payout.id())).isEqualTo(1);
  }

  /**
   * Somebody else's submission under this payout's id, straight to the proxy with a token below any
   * the lock server grants, so the payout's own worker passes the high-water check and meets the
   * uniqueness guard.
   */
  private void submitFirst(Payout payout, long amountMinor, String beneficiaryRef) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("payoutId", payout.id().toString());
    body.put("accountId", payout.accountId().value());
    body.put("fencingToken", 1);
    body.put("clientReference", payout.clientReference());
    body.put("amountMinor", amountMinor);
    body.put("currency", payout.currency());
    body.put("beneficiaryRef", beneficiaryRef);
    // A validly signed grant for token 1 and a worker's identity: the proxy refuses a submission
    // without either (ADR 0137, ADR 0145), and what is under test is the content check behind them.
    body.put(
        "grant",
        TestGrants.sign(
            platform.services.grantKeys().current(),
            payout.accountId().lockKey().value(),
            1,
            java.time.Instant.now().plusSeconds(60)));
    try {
      HttpResponse<String> answer =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create(platform.services.railProxy().baseUrl() + "/v1/submissions"))
                      .header("Content-Type", "application/json")
                      .header(
                          "Authorization",
                          "Bearer " + platform.tokens(FencepostRole.PAYOUT_WORKER).currentToken())
                      .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
      assertThat(JSON.readTree(answer.body()).path("outcome").asString()).isEqualTo("ACKED");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
