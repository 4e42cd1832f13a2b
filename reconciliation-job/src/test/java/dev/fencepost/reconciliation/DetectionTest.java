package dev.fencepost.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Each discrepancy class (ADR 0070), created deliberately in the stores, is reported with the right
 * class and count, and the run changes nothing but its own rows (FR-26, UC-07). A clean data set
 * reports a zero for every class and still reports itself.
 */
@Tag("UC-07")
@Tag("FR-26")
class DetectionTest extends ReconciliationTestBase {

  @Test
  void aCleanDataSetReportsZeroForEveryClassAndStillReportsItself() {
    for (int i = 0; i < 3; i++) {
      assertThat(world.execute(world.pending(), World.Until.POSTED).state())
          .isEqualTo(PayoutState.POSTED);
    }
    Payout declined = world.pending();
    world.faults(Map.of(declined.clientReference(), "DECLINE"), Duration.ZERO);
    assertThat(world.execute(declined, World.Until.POSTED).state()).isEqualTo(PayoutState.FAILED);
    StoreSnapshot before = StoreSnapshot.of(world);

    ReconciliationReport report = world.reconciler(world.settings()).run(world.window(), "test");

    assertOnly(report, Map.of());
    assertThat(StoreSnapshot.of(world)).isEqualTo(before);
    assertThat(persistedCounts(report))
        .hasSize(Discrepancy.values().length)
        .allSatisfy((d, n) -> assertThat(n).isZero());
    assertThat(
            world
                .sql
                .sql("SELECT status FROM reconciliation_run WHERE id = :id")
                .param("id", report.runId())
                .query(String.class)
                .single())
        .isEqualTo("COMPLETED");
    assertThat(events.named("reconciliation.finding")).isEmpty();
    assertThat(events.named("reconciliation.completed"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.get("total")).isEqualTo(0L);
              assertThat(e.get("runId")).isEqualTo(report.runId());
            });
  }

  @Test
  @Tag("INV-02")
  void aDuplicateMadeWithTheProxyUniquenessGuardOffIsOnePageFinding() {
    Payout payout = world.execute(world.pending(), World.Until.POSTED);
    // A second submission of the same payout through the FR-29 negative-control proxy (ADR 0043):
    // the rail, being non-idempotent, moves the money again.
    world.submit(world.stack.unguardedProxyUrl(), payout, payout.tokenStamp());
    assertThat(world.movementCount(payout.clientReference())).isEqualTo(2);
    StoreSnapshot before = StoreSnapshot.of(world);

    ReconciliationReport report = world.reconciler(world.settings()).run(world.window(), "test");

    assertOnly(report, Map.of(Discrepancy.DUPLICATE_SUBMISSION, 1L));
    assertThat(report.findings())
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.payoutId()).isEqualTo(payout.id().toString());
              assertThat(f.severity()).isEqualTo(Severity.PAGE);
            });
    assertThat(StoreSnapshot.of(world)).isEqualTo(before);
    assertThat(events.named("reconciliation.finding"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.get("discrepancy")).isEqualTo("DUPLICATE_SUBMISSION");
              assertThat(e.get("severity")).isEqualTo("PAGE");
              assertThat(e.get("level")).isEqualTo("ERROR");
              assertThat(e.get("count")).isEqualTo(1L);
              assertThat(e.get("sample")).isEqualTo(List.of(payout.id().toString()));
            });
    assertThat(
            world
                .meters
                .get("fencepost.reconciliation.findings")
                .tags("discrepancy", "DUPLICATE_SUBMISSION", "severity", "PAGE")
                .counter()
                .count())
        .isEqualTo(1.0);
  }

  @Test
  @Tag("INV-07")
  void railMovementsThatNoSubmissionAccountsForArePageFindings() {
    Payout bypassed = world.pending();
    // Money sent to the rail around the proxy: through the stub's API, not through any guard.
    world.railPost(bypassed.clientReference(), bypassed.amountMinor(), bypassed.beneficiaryRef());
    world.railPost("fp-not-one-of-ours", 1_234, "ben-bypass");
    StoreSnapshot before = StoreSnapshot.of(world);

    ReconciliationReport report = world.reconciler(world.settings()).run(world.window(), "test");

    // The one of ours has no submission; the other names no payout at all (ADR 0178).
    assertOnly(
        report,
        Map.of(
            Discrepancy.RAIL_MOVEMENT_WITHOUT_SUBMISSION, 1L,
            Discrepancy.MOVEMENT_WITHOUT_PAYOUT, 1L));
    assertThat(report.findings())
        .extracting(Finding::subject)
        .containsExactlyInAnyOrder(bypassed.id().toString(), "fp-not-one-of-ours");
    assertThat(StoreSnapshot.of(world)).isEqualTo(before);
  }

  @Test
  void anAcknowledgedSubmissionWithoutPostingIsFoundOnceTheWorkersGraceHasPassed() {
    Payout acked = world.execute(world.pending(), World.Until.ACKED_NOT_POSTED);
    assertThat(acked.state()).isEqualTo(PayoutState.RAIL_ACKED);
    StoreSnapshot before = StoreSnapshot.of(world);

    // Within the grace a worker's recovery is expected to post it (ADR 0070): not a finding yet.
    assertOnly(world.reconciler(world.settings()).run(world.window(), "test"), Map.of());

    ReconciliationReport late =
        world
            .reconciler(world.settings().withPostingGrace(Duration.ofMillis(1)))
            .run(world.window(), "test");
    assertOnly(late, Map.of(Discrepancy.SUBMISSION_WITHOUT_POSTING, 1L));
    assertThat(late.findings())
        .extracting(Finding::payoutId)
        .containsExactly(acked.id().toString());
    assertThat(StoreSnapshot.of(world)).isEqualTo(before);
  }

  @Test
  void aLedgerPostingThatNoSubmissionAccountsForIsAPageFinding() {
    Payout payout = world.pending();
    world.postedByARogueWorker(payout, "rr-invented");
    StoreSnapshot before = StoreSnapshot.of(world);

    ReconciliationReport report = world.reconciler(world.settings()).run(world.window(), "test");

    assertOnly(report, Map.of(Discrepancy.POSTING_WITHOUT_SUBMISSION, 1L));
    assertThat(report.findings())
        .extracting(Finding::payoutId)
        .containsExactly(payout.id().toString());
    assertThat(StoreSnapshot.of(world)).isEqualTo(before);
  }

  @Test
  @Tag("INV-03")
  void aBalanceThatIsNotItsLedgerSumIsAPageFinding() {
    Payout payout = world.execute(world.pending(), World.Until.POSTED);
    // No API can make a balance drift from its ledger (INV-03 holds in every transaction), so by
    // SQL.
    world
        .sql
        .sql("UPDATE account SET balance_minor = balance_minor + 1 WHERE id = :id")
        .param("id", payout.accountId().value())
        .update();
    StoreSnapshot before = StoreSnapshot.of(world);

    ReconciliationReport report = world.reconciler(world.settings()).run(world.window(), "test");

    assertOnly(report, Map.of(Discrepancy.LEDGER_IMBALANCE, 1L));
    assertThat(report.findings())
        .extracting(Finding::accountId)
        .containsExactly(payout.accountId().value());
    assertThat(StoreSnapshot.of(world)).isEqualTo(before);
  }

  @Test
  @Tag("INV-01")
  @Tag("A-15")
  void twoPayoutsInFlightOnOneAccountAreAPageFinding() {
    AccountId account = world.account(100_000);
    Payout first = world.pending(account, 1_000);
    Payout second = world.pending(account, 1_000);
    // The lock and payment-resource both refuse this; only SQL can produce it.
    world
        .sql
        .sql(
            "UPDATE payout SET state = 'CLAIMED', claimed_by = 'sql', claimed_at = now()"
                + " WHERE id IN (:a, :b)")
        .param("a", first.id().value())
        .param("b", second.id().value())
        .update();
    StoreSnapshot before = StoreSnapshot.of(world);

    ReconciliationReport report = world.reconciler(world.settings()).run(world.window(), "test");

    assertOnly(report, Map.of(Discrepancy.CONCURRENT_IN_FLIGHT, 1L));
    assertThat(report.findings()).extracting(Finding::accountId).containsExactly(account.value());
    assertThat(StoreSnapshot.of(world)).isEqualTo(before);
  }

  private Map<Discrepancy, Long> persistedCounts(ReconciliationReport report) {
    Map<Discrepancy, Long> counts = new EnumMap<>(Discrepancy.class);
    world
        .sql
        .sql("SELECT discrepancy, finding_count FROM reconciliation_class_count WHERE run_id = :id")
        .param("id", report.runId())
        .query((rs, i) -> Map.entry(rs.getString(1), rs.getLong(2)))
        .list()
        .forEach(e -> counts.put(Discrepancy.valueOf(e.getKey()), e.getValue()));
    return counts;
  }

  /** Exactly these counts, and zero for every other class; persisted as reported. */
  static void assertOnly(ReconciliationReport report, Map<Discrepancy, Long> expected) {
    Map<Discrepancy, Long> all = new EnumMap<>(Discrepancy.class);
    for (Discrepancy d : Discrepancy.values()) {
      all.put(d, expected.getOrDefault(d, 0L));
    }
    assertThat(report.counts())
        .as("counts per class, findings %s", report.findings())
        .isEqualTo(all);
  }
}
