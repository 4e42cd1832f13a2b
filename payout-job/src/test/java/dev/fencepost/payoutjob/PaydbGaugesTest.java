package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.lock.FencingToken;
import dev.fencepost.payment.Actor;
import dev.fencepost.payment.PaymentResource;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payment.testkit.PaydbFixtures;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The paydb gauges (ADR 0175) on a real paydb: each moves when the rows it reads change, and no
 * meter carries an identifier (NFR-09). A fresh paydb per test.
 */
@org.junit.jupiter.api.Tag("NFR-09")
class PaydbGaugesTest {

  @RegisterExtension
  static EmbeddedPostgresExtension server = EmbeddedPostgresExtension.withChangelog(null);

  private PostgresDatabase db;
  private SimpleMeterRegistry meters;
  private PaydbGauges gauges;
  private PaydbFixtures fixtures;
  private PaymentResource paydb;

  @BeforeEach
  void freshPaydb() {
    db =
        server
            .server()
            .createDatabase("gauges")
            .applyChangelog("db/changelog/paydb/db.changelog-master.yaml");
    meters = new SimpleMeterRegistry();
    // As the job connects: the runtime role, with only the grants of paydb's changelog.
    DataSource runtime =
        new DriverManagerDataSource(db.jdbcUrl(), db.runtime().username(), db.runtime().password());
    gauges = new PaydbGauges(runtime, Duration.ofSeconds(1), meters);
    fixtures = new PaydbFixtures(db.dataSource(), "gauges-test");
    paydb = new PaymentResource(db.dataSource(), new SimpleMeterRegistry());
  }

  @AfterEach
  void closePaydb() {
    db.close();
  }

  @Test
  void everyGaugeIsNotANumberUntilTheFirstRefresh() {
    assertThat(gauge("fencepost.payout.pending.oldest.age.seconds")).isNaN();
    assertThat(meters.get("fencepost.payouts").tag("state", "PENDING").gauge().value()).isNaN();
    assertThat(gauge("fencepost.payout.ambiguous.past_sla")).isNaN();
    assertThat(gauge("fencepost.reconciliation.last.success.age.seconds")).isNaN();
  }

  @Test
  void theOldestActionablePendingPayoutsAgeGrowsAndIgnoresAccountsWithAPayoutInFlight() {
    gauges.refresh();
    assertThat(gauge("fencepost.payout.pending.oldest.age.seconds")).isZero();

    List<Payout> payouts = fixtures.accountWithPayouts("age", 10_000, 2, 100);
    gauges.refresh();
    double first = gauge("fencepost.payout.pending.oldest.age.seconds");
    assertThat(first).isPositive();
    gauges.refresh();
    assertThat(gauge("fencepost.payout.pending.oldest.age.seconds")).isGreaterThan(first);

    // The account's first payout in flight: its second one is not actionable.
    paydb.claim(payouts.get(0).id(), FencingToken.of(1), Actor.worker("gauges-worker"));
    gauges.refresh();
    assertThat(gauge("fencepost.payout.pending.oldest.age.seconds")).isZero();
  }

  @Test
  void payoutsPerLiveStateCountEveryLiveStateIncludingZeroesAndNoTerminalOne() {
    List<Payout> payouts = fixtures.accountWithPayouts("states", 10_000, 3, 100);
    gauges.refresh();
    assertThat(perState(PayoutState.PENDING)).isEqualTo(3);
    assertThat(perState(PayoutState.CLAIMED)).isZero();

    FencingToken token = FencingToken.of(1);
    Actor worker = Actor.worker("gauges-worker");
    paydb.claim(payouts.get(0).id(), token, worker);
    gauges.refresh();
    assertThat(perState(PayoutState.PENDING)).isEqualTo(2);
    assertThat(perState(PayoutState.CLAIMED)).isEqualTo(1);

    paydb.markSubmitted(payouts.get(0).id(), token, worker);
    paydb.recordRailAcked(payouts.get(0).id(), token, worker, "R-gauges");
    paydb.post(payouts.get(0).id(), token, worker);
    gauges.refresh();
    assertThat(perState(PayoutState.PENDING)).isEqualTo(2);
    assertThat(perState(PayoutState.CLAIMED)).isZero();
    assertThat(meters.find("fencepost.payouts").gauges())
        .map(g -> g.getId().getTag("state"))
        .containsExactlyInAnyOrder(
            "PENDING", "CLAIMED", "RAIL_SUBMITTED", "RAIL_ACKED", "RAIL_AMBIGUOUS");
  }

  /**
   * ADR 0205: the count reads the live payouts' entries of index payout_state_updated and nothing
   * else, so 20,000 finished payouts are not read at every refresh. Without the state list the plan
   * reads them all (a sequential scan, or the whole index with no condition) and this fails.
   */
  @Test
  void theLiveCountReadsOnlyTheLivePayoutsIndexEntriesHoweverManyHaveFinished() {
    fixtures.accountWithPayouts("history", 10_000, 3, 100);
    JdbcClient admin = JdbcClient.create(db.dataSource());
    admin
        .sql(
            """
            INSERT INTO payout (id, account_id, amount_minor, currency, beneficiary_ref, state,
                                finished_at)
            SELECT gen_random_uuid(), account_id, 100, currency, 'old', 'POSTED', now()
              FROM (SELECT account_id, currency FROM payout LIMIT 1) a,
                   generate_series(1, 20000)""")
        .update();
    admin.sql("ANALYZE payout").update();

    String plan =
        String.join(
            "\n", admin.sql("EXPLAIN " + PaydbGauges.PER_LIVE_STATE).query(String.class).list());

    assertThat(plan)
        .contains("payout_state_updated")
        .contains("Index Cond")
        .doesNotContain("Seq Scan");
    gauges.refresh();
    assertThat(perState(PayoutState.PENDING)).isEqualTo(3);
  }

  @Test
  void anAmbiguousPayoutCountsAsPastItsSlaOnceTheSlaHasPassed() {
    Payout payout = fixtures.accountWithPayouts("ambiguous", 10_000, 1, 100).get(0);
    FencingToken token = FencingToken.of(1);
    Actor worker = Actor.worker("gauges-worker");
    paydb.claim(payout.id(), token, worker);
    paydb.markSubmitted(payout.id(), token, worker);
    paydb.recordRailTimeout(payout.id(), token, worker, "read timeout");
    gauges.refresh();
    assertThat(perState(PayoutState.RAIL_AMBIGUOUS)).isEqualTo(1);
    double pastSla = gauge("fencepost.payout.ambiguous.past_sla");
    assertThat(pastSla).isBetween(0.0, 1.0);

    // The SLA here is one second: wait for paydb's clock to pass it, not for a fixed time.
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              gauges.refresh();
              assertThat(gauge("fencepost.payout.ambiguous.past_sla")).isEqualTo(1.0);
            });
  }

  @Test
  void theLastReconciliationRunsAgeAndFindingsComeFromItsRecordInPaydb() {
    gauges.refresh();
    assertThat(gauge("fencepost.reconciliation.last.success.age.seconds")).isInfinite();
    assertThat(meters.find("fencepost.reconciliation.last.run.findings").gauges()).isEmpty();

    UUID failed = run("FAILED");
    classCount(failed, "LEDGER_IMBALANCE", "PAGE", 7);
    gauges.refresh();
    assertThat(gauge("fencepost.reconciliation.last.success.age.seconds")).isInfinite();
    assertThat(meters.find("fencepost.reconciliation.last.run.findings").gauges()).isEmpty();

    UUID completed = run("COMPLETED");
    classCount(completed, "LEDGER_IMBALANCE", "PAGE", 0);
    classCount(completed, "DUPLICATE_SUBMISSION", "PAGE", 2);
    classCount(completed, "AMBIGUOUS_BEYOND_SLA", "TICKET", 1);
    gauges.refresh();
    double age = gauge("fencepost.reconciliation.last.success.age.seconds");
    assertThat(age).isFinite().isGreaterThanOrEqualTo(0.0);
    assertThat(findings("DUPLICATE_SUBMISSION")).isEqualTo(2.0);
    assertThat(findings("LEDGER_IMBALANCE")).isZero();
    assertThat(findings("AMBIGUOUS_BEYOND_SLA")).isEqualTo(1.0);
    gauges.refresh();
    assertThat(gauge("fencepost.reconciliation.last.success.age.seconds")).isGreaterThan(age);

    UUID clean = run("COMPLETED");
    classCount(clean, "DUPLICATE_SUBMISSION", "PAGE", 0);
    gauges.refresh();
    assertThat(findings("DUPLICATE_SUBMISSION")).isZero();
    assertThat(meters.find("fencepost.reconciliation.last.run.findings").gauges()).hasSize(1);
  }

  @Test
  void aFailedReadShowsNotANumberRatherThanTheLastHealthyValue() {
    gauges.refresh();
    assertThat(gauge("fencepost.payout.ambiguous.past_sla")).isZero();
    JdbcClient owner = JdbcClient.create(db.dataSource());
    owner.sql("ALTER TABLE reconciliation_run RENAME TO reconciliation_run_away").update();
    try {
      gauges.refresh();
      assertThat(gauge("fencepost.payout.ambiguous.past_sla")).isNaN();
      assertThat(gauge("fencepost.payout.pending.oldest.age.seconds")).isNaN();
    } finally {
      owner.sql("ALTER TABLE reconciliation_run_away RENAME TO reconciliation_run").update();
    }
    gauges.refresh();
    assertThat(gauge("fencepost.payout.ambiguous.past_sla")).isZero();
  }

  @Test
  void noGaugeIsTaggedWithAnIdentifier() {
    List<Payout> payouts = fixtures.accountWithPayouts("ids", 10_000, 2, 100);
    paydb.claim(payouts.get(0).id(), FencingToken.of(1), Actor.worker("ids-worker"));
    UUID run = run("COMPLETED");
    classCount(run, "DUPLICATE_SUBMISSION", "PAGE", 1);
    gauges.refresh();
    Set<String> identifiers = new HashSet<>(Set.of(run.toString(), "ids-worker"));
    for (Payout p : payouts) {
      identifiers.add(p.id().toString());
      identifiers.add(p.accountId().value());
    }
    for (Meter meter : meters.getMeters()) {
      assertThat(meter.getId().getName()).matches("fencepost(\\.[a-z_]+)+");
      for (Tag tag : meter.getId().getTags()) {
        assertThat(tag.getKey()).isIn("state", "discrepancy", "severity");
        assertThat(tag.getValue()).isNotIn(identifiers).matches("[A-Z_]+");
      }
    }
  }

  @Test
  void theScrapeCarriesTheNamesTheAlertRulesUse() {
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    PaydbGauges scraped =
        new PaydbGauges(
            new DriverManagerDataSource(
                db.jdbcUrl(), db.runtime().username(), db.runtime().password()),
            Duration.ofHours(4),
            prometheus);
    classCount(run("COMPLETED"), "LEDGER_IMBALANCE", "PAGE", 0);
    scraped.refresh();
    // ops/prometheus/fencepost-rules.yaml uses these exact names.
    assertThat(prometheus.scrape())
        .contains("fencepost_payout_pending_oldest_age_seconds 0.0")
        .contains("fencepost_payouts{state=\"PENDING\"} 0.0")
        .contains("fencepost_payout_ambiguous_past_sla 0.0")
        .contains("fencepost_reconciliation_last_success_age_seconds ")
        .contains(
            "fencepost_reconciliation_last_run_findings{discrepancy=\"LEDGER_IMBALANCE\","
                + "severity=\"PAGE\"} 0.0");
  }

  private double gauge(String name) {
    return meters.get(name).gauge().value();
  }

  private double perState(PayoutState state) {
    return meters.get("fencepost.payouts").tag("state", state.name()).gauge().value();
  }

  private double findings(String discrepancy) {
    return meters
        .get("fencepost.reconciliation.last.run.findings")
        .tag("discrepancy", discrepancy)
        .gauge()
        .value();
  }

  private UUID run(String status) {
    UUID id = UUID.randomUUID();
    JdbcClient.create(db.dataSource())
        .sql(
            """
            INSERT INTO reconciliation_run
              (id, window_from, window_to, triggered_by, status, started_at, finished_at)
            VALUES (:id, now() - interval '2 hours', now() - interval '1 hour', 'test', :status,
                    clock_timestamp(), clock_timestamp())""")
        .param("id", id)
        .param("status", status)
        .update();
    return id;
  }

  private void classCount(UUID run, String discrepancy, String severity, long count) {
    JdbcClient.create(db.dataSource())
        .sql(
            "INSERT INTO reconciliation_class_count (run_id, discrepancy, severity, finding_count)"
                + " VALUES (:run, :d, :s, :n)")
        .param("run", run)
        .param("d", discrepancy)
        .param("s", severity)
        .param("n", count)
        .update();
  }
}
