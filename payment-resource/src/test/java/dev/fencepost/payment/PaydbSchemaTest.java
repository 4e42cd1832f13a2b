package dev.fencepost.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.payment.impl.BalanceSlots;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The rules paydb holds by itself (changelog db/changelog/paydb/003-guards.sql): evidence is
 * append-only, the fence never goes down, identities are immutable, groups balance at commit, one
 * posting per payout, amounts in range. Each guard that is a trigger also gets its negative
 * control: switched off inside a rolled-back transaction, the same statement goes through.
 */
class PaydbSchemaTest {

  @RegisterExtension static EmbeddedPostgresExtension db = Paydb.extension();

  static Paydb paydb;
  static Payout posted;
  static AccountId account;

  @BeforeAll
  static void arrange() {
    paydb = new Paydb(db.dataSource());
    PaymentResource resource = new PaymentResource(db.dataSource(), new SimpleMeterRegistry());
    Scenarios scenarios = new Scenarios(resource, new PayoutIntake(db.dataSource(), "schema"));
    account = scenarios.account(Scenarios.FUNDING);
    posted = scenarios.payoutIn(PayoutState.POSTED, account);
  }

  @Test
  void systemAccountsExistInTheDefaultCurrency() {
    assertThat(
            paydb
                .jdbc()
                .sql(
                    "SELECT id || ':' || kind || ':' || currency FROM account WHERE kind <> 'CUSTOMER'")
                .query(String.class)
                .list())
        .containsExactlyInAnyOrder(
            "payout-clearing:PAYOUT_CLEARING:EUR", "funding-source:FUNDING_SOURCE:EUR");
  }

  @Test
  void eachSystemAccountHasItsSixteenBalanceSlotsAndNoCustomerAccountHasAny() {
    assertThat(
            paydb
                .jdbc()
                .sql(
                    "SELECT account_id || ':' || min(slot) || '-' || max(slot) || ':' || count(*)"
                        + " FROM account_balance_slot GROUP BY account_id ORDER BY account_id")
                .query(String.class)
                .list())
        .containsExactly("funding-source:0-15:16", "payout-clearing:0-15:16");
    assertThat(BalanceSlots.COUNT).isEqualTo(16);
    assertRefused(
        "INSERT INTO account_balance_slot (account_id, slot) VALUES ('payout-clearing', 16)",
        "account_balance_slot_slot_check");
  }

  @Test
  void balanceSlotsAreNeverDeletedOrMovedToAnotherAccountOrSlot() {
    String slot = " WHERE account_id = 'payout-clearing' AND slot = 0";
    var before = paydb.snapshot();
    assertRefused("DELETE FROM account_balance_slot" + slot, "append-only");
    assertRefused("TRUNCATE account_balance_slot", "append-only");
    assertRefused("UPDATE account_balance_slot SET slot = 15" + slot, "immutable");
    assertRefused(
        "UPDATE account_balance_slot SET account_id = 'funding-source', slot = 15"
            + " WHERE account_id = 'payout-clearing' AND slot = 14",
        "immutable");
    assertThat(paydb.snapshot()).isEqualTo(before);
    // Negative controls: the triggers, not something else, are what refuse the change.
    assertGoesThroughWithTriggerDisabled(
        "account_balance_slot",
        "account_balance_slot_never_deleted",
        "DELETE FROM account_balance_slot" + slot);
    assertGoesThroughWithTriggerDisabled(
        "account_balance_slot",
        "account_balance_slot_guard",
        "UPDATE account_balance_slot SET account_id = '" + account + "'" + slot);
    assertThat(paydb.snapshot()).isEqualTo(before);
  }

  @Test
  void onlyIntakeMayWriteAnAuditRowWithoutAToken() {
    String row =
        "INSERT INTO audit_event (actor_role, actor_id, account_id, action)"
            + " VALUES ('%s', 'schema-test', '"
            + account.value()
            + "', 'ACCOUNT_FUNDED')";
    for (String role : new String[] {"WORKER", "RECONCILER", "OPERATOR"}) {
      assertRefused(row.formatted(role), "audit_event_token_unless_intake");
    }
    assertRefused(row.formatted("ANYONE"), "audit_event_actor_role_check");
    long before = auditRows();
    paydb.jdbc().sql(row.formatted("INTAKE")).update();
    assertThat(auditRows()).isEqualTo(before + 1);
  }

  private static long auditRows() {
    return paydb.jdbc().sql("SELECT count(*) FROM audit_event").query(Long.class).single();
  }

  @Test
  void clientReferenceIsDerivedFromThePayoutIdAndCannotBeWritten() {
    assertThat(posted.clientReference()).isEqualTo(posted.id().clientReference());
    assertThat(posted.clientReference()).matches("fp-[0-9a-f]{32}");
    assertRefused(
        "UPDATE payout SET client_reference = 'fp-other' WHERE id = '" + posted.id() + "'",
        "client_reference");
  }

  @Test
  void ledgerEntriesCannotBeUpdatedDeletedOrTruncated() {
    assertAppendOnly(
        "ledger_entry", "signed_amount = signed_amount * 2", "ledger_entry_append_only");
  }

  @Test
  void ledgerGroupsCannotBeUpdatedDeletedOrTruncated() {
    assertAppendOnly("ledger_group", "actor = 'someone-else'", "ledger_group_append_only");
  }

  @Test
  void auditEventsCannotBeUpdatedDeletedOrTruncated() {
    assertAppendOnly("audit_event", "actor_id = 'someone-else'", "audit_event_append_only");
  }

  @Test
  void accountsAndPayoutsAreNeverDeleted() {
    assertRefused("DELETE FROM payout WHERE id = '" + posted.id() + "'", "append-only");
    assertRefused("DELETE FROM account WHERE id = '" + account + "'", "append-only");
    assertRefused("TRUNCATE payout CASCADE", "append-only");
  }

  @Test
  @Tag("INV-05")
  void theFenceNeverGoesDownWhoeverWritesIt() {
    long fence = paydb.fence(account);
    assertThat(fence).isEqualTo(Scenarios.SETUP_TOKEN.value());
    assertRefused(
        "UPDATE account SET fence = " + (fence - 1) + " WHERE id = '" + account + "'",
        "may not decrease");
    assertThat(paydb.fence(account)).isEqualTo(fence);
    // Negative control: without the trigger the same statement lowers the fence.
    assertGoesThroughWithTriggerDisabled(
        "account",
        "account_guard",
        "UPDATE account SET fence = " + (fence - 1) + " WHERE id = '" + account + "'");
  }

  @Test
  void payoutIdentityIsImmutable() {
    String where = " WHERE id = '" + posted.id() + "'";
    assertRefused("UPDATE payout SET amount_minor = amount_minor + 1" + where, "immutable");
    assertRefused("UPDATE payout SET account_id = 'payout-clearing'" + where, "immutable");
    assertRefused("UPDATE payout SET beneficiary_ref = 'other'" + where, "immutable");
    assertRefused("UPDATE account SET currency = 'USD' WHERE id = '" + account + "'", "immutable");
  }

  @Test
  @Tag("INV-03")
  void anUnbalancedGroupIsRefusedAtCommit() {
    UUID group = UUID.randomUUID();
    assertRefused(
        "INSERT INTO ledger_group (id, kind, actor) VALUES ('"
            + group
            + "', 'FUNDING', 't');"
            + "INSERT INTO ledger_entry (group_id, account_id, counterparty_account_id,"
            + " signed_amount) VALUES ('"
            + group
            + "', '"
            + account
            + "', 'funding-source', 5)",
        "does not balance");
    assertRefused(
        "INSERT INTO ledger_group (id, kind, actor) VALUES ('"
            + UUID.randomUUID()
            + "', 'FUNDING', 't')",
        "does not balance");
  }

  @Test
  void aLegThatDisagreesWithItsHeaderIsRefusedAtCommit() {
    UUID group = UUID.randomUUID();
    Payout other = otherPendingPayout();
    assertRefused(
        "INSERT INTO ledger_group (id, kind, actor) VALUES ('"
            + group
            + "', 'FUNDING', 't');"
            + leg(group, account.value(), "funding-source", 5, "'" + other.id() + "'")
            + leg(group, "funding-source", account.value(), -5, "NULL"),
        "disagree");
  }

  @Test
  void aSecondPostingGroupForOnePayoutIsRefused() {
    UUID group = UUID.randomUUID();
    String payout = "'" + posted.id() + "'";
    assertRefused(
        "INSERT INTO ledger_group (id, kind, payout_id, fencing_token, actor) VALUES ('"
            + group
            + "', 'PAYOUT_POSTING', "
            + payout
            + ", 99, 't')",
        "ledger_group_one_posting_per_payout");
  }

  @Test
  void amountsOutsideTheirRangeAreRefused() {
    for (String amount : new String[] {"0", "-1", "1000000000000001"}) {
      assertRefused(
          "INSERT INTO payout (id, account_id, amount_minor, currency, beneficiary_ref) VALUES ('"
              + UUID.randomUUID()
              + "', '"
              + account
              + "', "
              + amount
              + ", 'EUR', 'b')",
          "payout_amount_minor_check");
    }
    UUID group = UUID.randomUUID();
    assertRefused(
        "INSERT INTO ledger_group (id, kind, actor) VALUES ('"
            + group
            + "', 'FUNDING', 't');"
            + leg(group, account.value(), "funding-source", 0, "NULL"),
        "ledger_entry_signed_amount_check");
  }

  @Test
  @Tag("A-06")
  void aPayoutIsInItsAccountsCurrency() {
    assertRefused(
        "INSERT INTO payout (id, account_id, amount_minor, currency, beneficiary_ref) VALUES ('"
            + UUID.randomUUID()
            + "', '"
            + account
            + "', 100, 'USD', 'b')",
        "payout_account_currency_fk");
  }

  @Test
  void onlyATerminalPayoutCarriesAFinishTime() {
    assertRefused(
        "UPDATE payout SET finished_at = NULL WHERE id = '" + posted.id() + "'",
        "payout_finished_iff_terminal");
  }

  private static Payout otherPendingPayout() {
    return new PayoutIntake(db.dataSource(), "schema")
        .createPendingPayout(account, 10, "EUR", "other");
  }

  private static String leg(
      UUID group, String account, String counterparty, long amount, String payout) {
    return "INSERT INTO ledger_entry (group_id, account_id, counterparty_account_id, signed_amount,"
        + " payout_id) VALUES ('"
        + group
        + "', '"
        + account
        + "', '"
        + counterparty
        + "', "
        + amount
        + ", "
        + payout
        + ");";
  }

  private static void assertAppendOnly(String table, String assignment, String trigger) {
    var before = paydb.snapshot();
    assertThat(paydb.count(table)).isPositive();
    assertRefused("UPDATE " + table + " SET " + assignment, "append-only");
    assertRefused("DELETE FROM " + table, "append-only");
    assertRefused("TRUNCATE " + table + " CASCADE", "append-only");
    assertThat(paydb.snapshot()).isEqualTo(before);
    // Negative control: the trigger, not something else, is what refuses the edit.
    assertGoesThroughWithTriggerDisabled(table, trigger, "UPDATE " + table + " SET " + assignment);
    assertThat(paydb.snapshot()).isEqualTo(before);
  }

  /** Runs {@code sql} in one transaction and expects it (or its COMMIT) to fail. */
  private static void assertRefused(String sql, String messageFragment) {
    assertThatThrownBy(
            () -> {
              try (Connection c = db.dataSource().getConnection()) {
                c.setAutoCommit(false);
                try (Statement s = c.createStatement()) {
                  s.execute(sql);
                  c.commit();
                } finally {
                  if (!c.getAutoCommit()) {
                    c.rollback();
                  }
                  c.setAutoCommit(true);
                }
              }
            })
        .isInstanceOf(SQLException.class)
        .hasMessageContaining(messageFragment);
  }

  /** Disables {@code trigger}, runs {@code sql}, expects rows to change, and rolls all back. */
  private static void assertGoesThroughWithTriggerDisabled(
      String table, String trigger, String sql) {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        s.execute("ALTER TABLE " + table + " DISABLE TRIGGER " + trigger);
        assertThat(s.executeUpdate(sql)).isPositive();
      } finally {
        c.rollback();
        c.setAutoCommit(true);
      }
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }
}
