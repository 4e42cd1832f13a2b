package dev.fencepost.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.payment.Actor;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.security.FencepostRole;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The classes the statements alone show (ADR 0178), each found by the scan of the window's
 * statement with nothing but the statement and paydb (no proxy), and by a whole run: a movement
 * whose amount, currency or beneficiary is not its payout's (PAGE), a movement naming no payout
 * (PAGE), and a movement for a payout still CLAIMED, RAIL_SUBMITTED or RAIL_AMBIGUOUS once the
 * settlement window has passed since it was booked (TICKET).
 */
@Tag("UC-07")
@Tag("FR-26")
class StatementClassesTest extends ReconciliationTestBase {

  @Test
  @Tag("INV-07")
  void aMovementWhoseAmountCurrencyOrBeneficiaryIsNotItsPayoutsIsAPageFinding() {
    Payout amount = world.pending();
    Payout currency = world.pending();
    Payout beneficiary = world.pending();
    Payout right = world.pending();
    railPost(amount.clientReference(), amount.amountMinor() + 1, "EUR", amount.beneficiaryRef());
    railPost(currency.clientReference(), currency.amountMinor(), "USD", currency.beneficiaryRef());
    railPost(beneficiary.clientReference(), beneficiary.amountMinor(), "EUR", "ben-elsewhere");
    railPost(right.clientReference(), right.amountMinor(), "EUR", right.beneficiaryRef());

    Map<Discrepancy, Long> scanned = scanAlone(world.settings());

    assertThat(scanned).isEqualTo(Map.of(Discrepancy.MOVEMENT_CONTENT_MISMATCH, 3L));
    ReconciliationReport report = world.reconciler(world.settings()).run(world.window(), "test");
    assertThat(report.count(Discrepancy.MOVEMENT_CONTENT_MISMATCH)).isEqualTo(3);
    assertThat(report.findings())
        .filteredOn(f -> f.discrepancy() == Discrepancy.MOVEMENT_CONTENT_MISMATCH)
        .allSatisfy(f -> assertThat(f.severity()).isEqualTo(Severity.PAGE))
        .extracting(Finding::payoutId)
        .containsExactlyInAnyOrder(
            amount.id().toString(), currency.id().toString(), beneficiary.id().toString());
  }

  @Test
  @Tag("INV-07")
  void aMovementThatNamesNoPayoutIsAPageFinding() {
    world.execute(world.pending(), World.Until.POSTED);
    railPost("fp-" + UUID.randomUUID().toString().replace("-", ""), 999, "EUR", "ben-x");

    assertThat(scanAlone(world.settings()))
        .isEqualTo(Map.of(Discrepancy.MOVEMENT_WITHOUT_PAYOUT, 1L));
    ReconciliationReport report = world.reconciler(world.settings()).run(world.window(), "test");
    DetectionTest.assertOnly(report, Map.of(Discrepancy.MOVEMENT_WITHOUT_PAYOUT, 1L));
    assertThat(report.findings().get(0).severity()).isEqualTo(Severity.PAGE);
  }

  @Test
  void aMovementForAPayoutStillInFlightPastTheSettlementWindowIsATicket() {
    Payout claimed = inFlight(false);
    Payout submitted = inFlight(true);
    Payout ambiguous = world.pending();
    world.faults(Map.of(ambiguous.clientReference(), "TIMEOUT_AFTER_SETTLE"), Duration.ZERO);
    assertThat(world.execute(ambiguous, World.Until.POSTED).state())
        .isEqualTo(PayoutState.RAIL_AMBIGUOUS);
    railPost(claimed.clientReference(), claimed.amountMinor(), "EUR", claimed.beneficiaryRef());
    railPost(
        submitted.clientReference(), submitted.amountMinor(), "EUR", submitted.beneficiaryRef());

    // Within the settlement window the payouts may still catch up: nothing to report.
    assertThat(scanAlone(world.settings())).isEmpty();
    Map<Discrepancy, Long> late =
        scanAlone(world.settings().withSettlementWindow(Duration.ofMillis(1)));

    assertThat(late).isEqualTo(Map.of(Discrepancy.MOVEMENT_FOR_UNSETTLED_PAYOUT, 3L));
    assertThat(Discrepancy.MOVEMENT_FOR_UNSETTLED_PAYOUT.severity()).isEqualTo(Severity.TICKET);
  }

  /** A payout claimed (and marked submitted) under its account's lock, then left there. */
  private Payout inFlight(boolean submitted) {
    Payout payout = world.pending();
    Actor worker = Actor.worker("stuck-worker");
    return world.locks.execute(
        payout.accountId().lockKey(),
        Duration.ofSeconds(5),
        lock -> {
          Payout p = world.payments.claim(payout.id(), lock.token(), worker);
          return submitted ? world.payments.markSubmitted(payout.id(), lock.token(), worker) : p;
        });
  }

  /** The scan of the world's window with the statement and paydb only: what it found, per class. */
  private Map<Discrepancy, Long> scanAlone(ReconciliationSettings settings) {
    StatementEntryStore entries = new StatementEntryStore(world.paydb);
    StatementScan scan =
        new StatementScan(
            new RailStatementSource(
                world.stack.stubUrl(),
                Duration.ofSeconds(5),
                world.stack.tokens(FencepostRole.RECONCILER),
                500),
            entries,
            new PaydbReads(world.paydb),
            settings);
    String key = "scan-" + UUID.randomUUID();
    scan.scan(world.window(), key, 2);
    return entries.scanCounts(key);
  }

  private void railPost(String clientReference, long amount, String currency, String beneficiary) {
    String body =
        World.JSON.writeValueAsString(
            Map.of(
                "clientReference",
                clientReference,
                "amountMinor",
                amount,
                "currency",
                currency,
                "beneficiaryRef",
                beneficiary));
    assertThat(World.send("POST", world.stack.stubUrl() + "/rail/payments", body).statusCode())
        .isEqualTo(201);
  }
}
