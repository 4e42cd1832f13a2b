package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.LedgerImbalanceException;
import dev.fencepost.payment.PaymentResource;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payment.autoconfigure.PaydbAutoConfiguration;
import dev.fencepost.testsupport.metrics.ScrapeCardinality;
import dev.fencepost.testsupport.postgres.CountingDataSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.batch.core.BatchStatus;
import org.springframework.batch.core.job.JobExecution;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * UC-01 through the real job: lock server, paydb, proxy and rail stub, each payout under {@code
 * payout:{accountId}}, and each alternate: already terminal on the re-read, insufficient funds, a
 * rail decline.
 */
@Tag("UC-01")
class ExecutePayoutTest extends OneWorkerTest {

  @AfterEach
  void railBackToNormal() throws Exception {
    platform.resetRailFaults();
  }

  @Test
  void aPendingPayoutIsClaimedSubmittedOnceAckedAndPosted() throws Exception {
    List<Payout> payouts = platform.accountWithPayouts("uc01", 10_000, 3, 1_500);
    AccountId account = payouts.get(0).accountId();

    JobExecution run = Platform.run(worker);

    assertThat(run.getStatus()).isEqualTo(BatchStatus.COMPLETED);
    for (Payout payout : payouts) {
      Payout done = platform.reload(payout);
      assertThat(done.state()).isEqualTo(PayoutState.POSTED);
      assertThat(done.railReference()).isNotBlank();
      assertThat(platform.movements(payout.id())).isEqualTo(1);
      assertThat(platform.submissions(payout.id())).isEqualTo(1);
    }
    assertThat(platform.payments.account(account).balanceMinor()).isEqualTo(10_000 - 3 * 1_500);
    assertThat(platform.payments.ledgerAudit().driftOf(account)).isEmpty();
    assertThat(run.getExitStatus().getExitDescription()).contains("POSTED=");
  }

  @Test
  @Tag("FR-14")
  @Tag("UC-02")
  void aPayoutFinishedByAnotherWorkerIsLeftAloneOnTheReRead() throws Exception {
    Payout payout = platform.accountWithPayouts("reread", 10_000, 1, 700).get(0);
    PayoutExecutor executor = worker.getBean(PayoutExecutor.class);
    assertThat(executor.execute(payout).outcome()).isEqualTo(PayoutOutcome.POSTED);

    long fence = platform.payments.account(payout.accountId()).fence();

    // The same stale PENDING snapshot offered again, as a slow reader would (FR-14).
    PayoutResult again = executor.execute(payout);

    assertThat(again.outcome()).isEqualTo(PayoutOutcome.ALREADY_TERMINAL);
    assertThat(platform.movements(payout.id())).isEqualTo(1);
    assertThat(platform.submissions(payout.id())).isEqualTo(1);
    assertThat(platform.payments.account(payout.accountId()).fence())
        .as("ADR 0218: the claim that found it POSTED rolled its fence advance back")
        .isEqualTo(fence);
  }

  @Test
  @Tag("FR-14")
  void aPendingCandidatesAttemptReadsThePayoutInsideItsClaimAndNotBefore() throws Exception {
    Payout payout = platform.accountWithPayouts("oneread", 10_000, 1, 700).get(0);
    CountingDataSource counted =
        new CountingDataSource(
            worker.getBean(PaydbAutoConfiguration.DATA_SOURCE_BEAN, DataSource.class));
    PayoutExecutor executor =
        executorOver(new PaymentResource(counted, new SimpleMeterRegistry()), "w-one-read");
    counted.reset();

    assertThat(executor.execute(payout).outcome()).isEqualTo(PayoutOutcome.POSTED);

    assertThat(counted.statements().get(0))
        .as("the attempt's first statement is the claim's fence, with no read before it")
        .startsWith("UPDATE account a");
    assertThat(counted.statements())
        .filteredOn(sql -> sql.contains("FROM payout WHERE id = ?"))
        .as("the claim's own re-read, and no other (ADR 0219: none for the posting)")
        .hasSize(1);
    assertThat(counted.connections())
        .as("one transaction for the claim and one for the settlement, none for a read")
        .isEqualTo(2);
  }

  @Test
  @Tag("INV-03")
  void aSettlementPaydbRefusesIsMadeOneStepAtATimeSoThePayoutIsLeftRailAcked() {
    Payout payout = platform.accountWithPayouts("settle-refused", 10_000, 1, 700).get(0);
    JdbcClient paydb = JdbcClient.create(platform.services.paydb().dataSource());
    // Behind the library's back, as LedgerNegativeControlTest does: the posting's INV-03 check
    // then refuses, in the settlement and again in the posting on its own.
    corruptBalance(paydb, payout, 1);
    try {
      assertThatThrownBy(() -> worker.getBean(PayoutExecutor.class).execute(payout))
          .isInstanceOf(LedgerImbalanceException.class);

      Payout left = platform.reload(payout);
      assertThat(left.state())
          .as("paydb records that the money left, though the posting could not be made")
          .isEqualTo(PayoutState.RAIL_ACKED);
      assertThat(left.railReference()).isNotBlank();
      assertThat(platform.movements(payout.id())).isEqualTo(1);
      assertThat(platform.submissions(payout.id())).isEqualTo(1);
    } finally {
      corruptBalance(paydb, payout, -1);
    }
    // Mended, the payout is posted as any RAIL_ACKED one is: by the next holder.
    assertThat(worker.getBean(PayoutExecutor.class).execute(platform.reload(payout)).outcome())
        .isEqualTo(PayoutOutcome.POSTED);
    assertThat(platform.movements(payout.id())).isEqualTo(1);
  }

  private static void corruptBalance(JdbcClient paydb, Payout payout, long delta) {
    paydb
        .sql("UPDATE account SET balance_minor = balance_minor + :delta WHERE id = :id")
        .param("delta", delta)
        .param("id", payout.accountId().value())
        .update();
  }

  @Test
  @Tag("NFR-09")
  void noMetricOfTheWorkerCarriesAPayoutAnAccountATokenOrAWorkerAsATag() throws Exception {
    List<Payout> payouts = platform.accountWithPayouts("metrics", 10_000, 2, 700);
    Payout poor = platform.accountWithPayouts("metricspoor", 100, 1, 5_000).get(0);
    Platform.run(worker);
    PayoutExecutor executor = worker.getBean(PayoutExecutor.class);
    executor.execute(payouts.get(0));
    worker.getBean(PaydbGauges.class).refresh();

    List<String> identifiers = new java.util.ArrayList<>();
    for (Payout p : List.of(payouts.get(0), payouts.get(1), poor)) {
      identifiers.add(p.id().toString());
      identifiers.add(p.accountId().value());
      identifiers.add(p.clientReference());
      Payout done = platform.reload(p);
      identifiers.add(String.valueOf(done.tokenStamp()));
      if (done.railReference() != null) {
        identifiers.add(done.railReference());
      }
    }
    identifiers.add(executor.worker().id());
    // The worker's registry holds the job's, the lock starter's, payment-resource's and the paydb
    // gauges' meters: the same check as every application's.
    String scrape =
        worker.getBean(io.micrometer.prometheusmetrics.PrometheusMeterRegistry.class).scrape();
    ScrapeCardinality.assertBounded(scrape, identifiers);
    assertThat(scrape)
        .contains("fencepost_payout_job_outcomes_total")
        .contains("fencepost_lock_client_acquire_seconds_count")
        .contains("fencepost_payouts{");
  }

  @Test
  @Tag("A-09")
  void insufficientFundsFailTheClaimWithoutARailCall() throws Exception {
    Payout payout = platform.accountWithPayouts("poor", 100, 1, 5_000).get(0);

    PayoutResult result = worker.getBean(PayoutExecutor.class).execute(payout);

    assertThat(result.outcome()).isEqualTo(PayoutOutcome.FAILED_INSUFFICIENT_FUNDS);
    assertThat(platform.reload(payout).state()).isEqualTo(PayoutState.FAILED);
    assertThat(platform.movements(payout.id())).isZero();
    assertThat(platform.submissions(payout.id())).isZero();
    assertThat(platform.payments.account(payout.accountId()).balanceMinor()).isEqualTo(100);
  }

  @Test
  void aRailDeclineFailsThePayoutWithNoLedgerMovement() throws Exception {
    Payout payout = platform.accountWithPayouts("decline", 10_000, 1, 2_000).get(0);
    platform.railFaults(Map.of(payout.id().clientReference(), "DECLINE"));

    PayoutResult result = worker.getBean(PayoutExecutor.class).execute(payout);

    assertThat(result.outcome()).isEqualTo(PayoutOutcome.FAILED_DECLINED);
    Payout done = platform.reload(payout);
    assertThat(done.state()).isEqualTo(PayoutState.FAILED);
    assertThat(done.failureReason()).contains("BENEFICIARY_ACCOUNT_CLOSED");
    assertThat(platform.movements(payout.id())).isZero();
    assertThat(platform.submissions(payout.id())).isEqualTo(1);
    assertThat(platform.payments.account(payout.accountId()).balanceMinor()).isEqualTo(10_000);
  }
}
