package dev.fencepost.payment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import liquibase.Scope;
import liquibase.changelog.ChangeLogParameters;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DatabaseChangelogCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * ADR 0193 on a paydb that already holds money: changeset paydb-011 leaves each system account's
 * balance where it was, as the base its slots add to, so the totals and INV-03 hold across the
 * migration and the postings after it.
 */
@Tag("INV-03")
class BalanceSlotsMigrationTest {

  @RegisterExtension
  static EmbeddedPostgresExtension db = EmbeddedPostgresExtension.withChangelog(null);

  static final String BEFORE_011 = "paydb-before-011/changelog.yaml";
  static final UUID OLD_PAYOUT = UUID.fromString("00000000-0000-4000-8000-0000000b0011");

  @Test
  void theMigrationKeepsTheSystemAccountsBalancesAsTheBaseOfTheirSlots() throws Exception {
    applyAsOwner(BEFORE_011);
    // A funding and a posting as the library wrote them before the slots: both balances on the
    // account rows.
    execute(
        "INSERT INTO account (id, kind, currency) VALUES ('acc-old', 'CUSTOMER', 'EUR')",
        "INSERT INTO ledger_group (id, kind, actor) VALUES"
            + " ('00000000-0000-4000-8000-00000000f011', 'FUNDING', 'before-011')",
        "INSERT INTO ledger_entry (group_id, account_id, counterparty_account_id, signed_amount)"
            + " VALUES ('00000000-0000-4000-8000-00000000f011', 'funding-source', 'acc-old', -10000),"
            + " ('00000000-0000-4000-8000-00000000f011', 'acc-old', 'funding-source', 10000)",
        "UPDATE account SET balance_minor = balance_minor - 10000 WHERE id = 'funding-source'",
        "UPDATE account SET balance_minor = balance_minor + 10000 WHERE id = 'acc-old'",
        "INSERT INTO payout (id, account_id, amount_minor, currency, beneficiary_ref, state,"
            + " token_stamp, finished_at) VALUES ('"
            + OLD_PAYOUT
            + "', 'acc-old', 2500, 'EUR', 'b-old', 'POSTED', 5, now())",
        "INSERT INTO ledger_group (id, kind, payout_id, fencing_token, actor) VALUES"
            + " ('00000000-0000-4000-8000-00000000a011', 'PAYOUT_POSTING', '"
            + OLD_PAYOUT
            + "', 5, 'before-011')",
        "INSERT INTO ledger_entry (group_id, account_id, counterparty_account_id, signed_amount,"
            + " payout_id, fencing_token) VALUES"
            + " ('00000000-0000-4000-8000-00000000a011', 'acc-old', 'payout-clearing', -2500, '"
            + OLD_PAYOUT
            + "', 5),"
            + " ('00000000-0000-4000-8000-00000000a011', 'payout-clearing', 'acc-old', 2500, '"
            + OLD_PAYOUT
            + "', 5)",
        "UPDATE account SET balance_minor = balance_minor - 2500 WHERE id = 'acc-old'",
        "UPDATE account SET balance_minor = balance_minor + 2500 WHERE id = 'payout-clearing'");

    db.database().applyChangelog(Paydb.CHANGELOG);

    Paydb paydb = new Paydb(db.dataSource());
    assertThat(bases())
        .containsExactly(
            Map.entry("funding-source", -10_000L), Map.entry("payout-clearing", 2_500L));
    assertThat(
            paydb
                .jdbc()
                .sql(
                    "SELECT account_id || ':' || count(*) || ':' || sum(balance_minor)"
                        + " FROM account_balance_slot GROUP BY account_id ORDER BY account_id")
                .query(String.class)
                .list())
        .containsExactly("funding-source:16:0", "payout-clearing:16:0");
    PaymentResource resource = new PaymentResource(db.dataSource(), new SimpleMeterRegistry());
    assertThat(resource.account(AccountId.PAYOUT_CLEARING).balanceMinor()).isEqualTo(2_500);
    assertThat(resource.account(AccountId.FUNDING_SOURCE).balanceMinor()).isEqualTo(-10_000);
    assertThat(resource.ledgerAudit().check(100).clean()).isTrue();

    // After the migration, a movement lands on a slot and the totals go on from the base.
    Scenarios scenarios = new Scenarios(resource, new PayoutIntake(db.dataSource(), "after-011"));
    Payout acked = scenarios.payoutIn(PayoutState.RAIL_ACKED);
    resource.post(acked.id(), FencingToken.of(20), Actor.worker("w-after"));

    assertThat(bases())
        .containsExactly(
            Map.entry("funding-source", -10_000L), Map.entry("payout-clearing", 2_500L));
    assertThat(resource.account(AccountId.PAYOUT_CLEARING).balanceMinor())
        .isEqualTo(2_500 + Scenarios.AMOUNT);
    assertThat(paydb.balance(AccountId.PAYOUT_CLEARING)).isEqualTo(2_500 + Scenarios.AMOUNT);
    assertThat(resource.account(AccountId.FUNDING_SOURCE).balanceMinor())
        .isEqualTo(-10_000 - Scenarios.FUNDING);
    LedgerAudit.Report report = resource.ledgerAudit().check(100);
    assertThat(report.globalSum()).isZero();
    assertThat(report.clean()).isTrue();
  }

  /** The system accounts' own balance columns, the bases. */
  private static List<Map.Entry<String, Long>> bases() {
    return new Paydb(db.dataSource())
        .jdbc()
        .sql("SELECT id, balance_minor FROM account WHERE kind <> 'CUSTOMER' ORDER BY id")
        .query((rs, row) -> Map.entry(rs.getString(1), rs.getLong(2)))
        .list();
  }

  /**
   * What the migration step does for the master changelog, for another one
   * (dev.fencepost.db.Migration).
   */
  private static void applyAsOwner(String changelog) throws Exception {
    var owner = db.database().owner();
    try (Connection c =
        DriverManager.getConnection(db.jdbcUrl(), owner.username(), owner.password())) {
      Database database =
          DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(c));
      ChangeLogParameters parameters = new ChangeLogParameters(database);
      parameters.set("runtime_role", db.database().runtime().username());
      Scope.child(
          Map.<String, Object>of(
              Scope.Attr.resourceAccessor.name(),
              new ClassLoaderResourceAccessor(BalanceSlotsMigrationTest.class.getClassLoader())),
          () ->
              new CommandScope(UpdateCommandStep.COMMAND_NAME)
                  .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                  .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, changelog)
                  .addArgumentValue(DatabaseChangelogCommandStep.CHANGELOG_PARAMETERS, parameters)
                  .execute());
    }
  }

  /** Runs the statements in one transaction (ledger groups balance at COMMIT). */
  private static void execute(String... statements) throws SQLException {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        for (String sql : statements) {
          s.execute(sql);
        }
      }
      c.commit();
    }
  }
}
