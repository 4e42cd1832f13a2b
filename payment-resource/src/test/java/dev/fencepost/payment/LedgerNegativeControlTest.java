package dev.fencepost.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.lock.FencingToken;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * NFR-07 for INV-03: the ledger is broken on purpose, behind the library's back, and the checks
 * must notice. The in-transaction assertion refuses to post onto a corrupted account and rolls
 * back; {@link LedgerAudit} reports drift, an unbalanced group (with the database's own guard
 * switched off to let one in) and a payout whose state disagrees with the ledger.
 */
@Tag("INV-03")
@Tag("NFR-07")
class LedgerNegativeControlTest {

  @RegisterExtension static PaymentFixture fx = PaymentFixture.withLoader("ledger-neg");

  @Test
  void postingOntoACorruptedBalanceFailsItsAssertionAndRollsBackEverything() {
    Payout acked = fx.scenarios().payoutIn(PayoutState.RAIL_ACKED);
    fx.paydb().corruptBalance(acked.accountId(), 1);
    var before = fx.paydb().snapshot();

    assertThatThrownBy(() -> fx.resource().post(acked.id(), FencingToken.of(50), Actor.worker("w")))
        .isInstanceOf(LedgerImbalanceException.class)
        .hasMessageContaining("differs from the sum of its entries");

    assertThat(fx.paydb().snapshot())
        .isEqualTo(before); // no legs, no balance change, no fence advance
    assertThat(fx.resource().findPayout(acked.id()).orElseThrow().state())
        .isEqualTo(PayoutState.RAIL_ACKED);
    assertThat(fx.events().named("ledger.assertion_failed"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.get("check")).isEqualTo("account_balance");
              assertThat(e.get("level")).isEqualTo("ERROR");
            });
    assertThat(
            fx.meters()
                .get("fencepost.ledger.assertion.failures")
                .tag("check", "account_balance")
                .counter()
                .count())
        .isEqualTo(1.0);
  }

  @Test
  void ledgerAuditReportAnAccountWhoseBalanceDriftedFromItsEntries() {
    AccountId account = fx.scenarios().account(5_000);
    assertThat(fx.resource().ledgerAudit().driftOf(account)).isEmpty();

    fx.paydb().corruptBalance(account, -3);

    assertThat(fx.resource().ledgerAudit().driftOf(account))
        .hasValueSatisfying(
            d -> {
              assertThat(d.balanceMinor()).isEqualTo(4_997);
              assertThat(d.ledgerSum()).isEqualTo(5_000);
            });
    LedgerAudit.Report report = fx.resource().ledgerAudit().check(1_000);
    assertThat(report.clean()).isFalse();
    assertThat(report.balanceDrifts()).extracting(d -> d.accountId()).contains(account);
  }

  @Test
  void ledgerAuditReportAnUnbalancedGroupThatGotPastADisabledDatabaseGuard() {
    AccountId account = fx.scenarios().account(1_000);
    UUID group = UUID.randomUUID();
    // Negative control of the deferred trigger as well: with it off, the unbalanced group commits.
    execute(
        "ALTER TABLE ledger_entry DISABLE TRIGGER ledger_entry_group_balances;"
            + "ALTER TABLE ledger_group DISABLE TRIGGER ledger_group_balances;"
            + "INSERT INTO ledger_group (id, kind, actor) VALUES ('"
            + group
            + "', 'FUNDING', 'forger');"
            + "INSERT INTO ledger_entry (group_id, account_id, counterparty_account_id,"
            + " signed_amount) VALUES ('"
            + group
            + "', '"
            + account
            + "', 'funding-source', 999);"
            + "ALTER TABLE ledger_entry ENABLE TRIGGER ledger_entry_group_balances;"
            + "ALTER TABLE ledger_group ENABLE TRIGGER ledger_group_balances;");

    LedgerAudit.Report report = fx.resource().ledgerAudit().check(1_000);

    assertThat(report.clean()).isFalse();
    assertThat(report.unbalancedGroups())
        .filteredOn(g -> g.groupId().equals(group))
        .singleElement()
        .satisfies(
            g -> {
              assertThat(g.sum()).isEqualTo(999);
              assertThat(g.legs()).isEqualTo(1);
            });
    assertThat(report.globalSum().signum()).isNotZero();
    assertThat(report.balanceDrifts()).extracting(d -> d.accountId()).contains(account);
  }

  @Test
  void ledgerAuditReportAPostedPayoutWithoutAPostingGroup() {
    Payout acked = fx.scenarios().payoutIn(PayoutState.RAIL_ACKED);
    // A "cleanup" that marks the payout POSTED without posting: the state lies about the ledger.
    execute(
        "UPDATE payout SET state = 'POSTED', finished_at = now() WHERE id = '" + acked.id() + "'");

    LedgerAudit.Report report = fx.resource().ledgerAudit().check(1_000);

    assertThat(report.postingMismatches())
        .filteredOn(m -> m.payoutId().equals(acked.id()))
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.state()).isEqualTo(PayoutState.POSTED);
              assertThat(m.hasPostingGroup()).isFalse();
            });
  }

  private static void execute(String sql) {
    try (Connection c = fx.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }
}
