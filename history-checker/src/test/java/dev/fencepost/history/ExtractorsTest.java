package dev.fencepost.history;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.fencepost.history.Records.Account;
import dev.fencepost.history.Records.Grant;
import dev.fencepost.history.Records.GuardDecision;
import dev.fencepost.history.Records.LedgerEntry;
import dev.fencepost.history.Records.Payout;
import dev.fencepost.history.Records.RailMovement;
import dev.fencepost.history.Records.Submission;
import dev.fencepost.history.Records.Transition;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The extractors against the real changelogs of paydb, proxydb and lockdb (db module). */
class ExtractorsTest {

  @RegisterExtension
  static EmbeddedPostgresExtension paydb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/paydb/db.changelog-master.yaml");

  /** A paydb of its own for the balance slots' test, so the row-for-row test sees only its rows. */
  @RegisterExtension
  static EmbeddedPostgresExtension slottedPaydb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/paydb/db.changelog-master.yaml");

  @RegisterExtension
  static EmbeddedPostgresExtension proxydb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/proxydb/db.changelog-master.yaml");

  @RegisterExtension
  static EmbeddedPostgresExtension lockdb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/lockdb/db.changelog-master.yaml");

  private static final UUID PAYOUT = UUID.fromString("0b6f8e1c-6a51-4d0e-9e2a-3f1c2b7d9a10");
  private static final String REFERENCE = "fp-0b6f8e1c6a514d0e9e2a3f1c2b7d9a10";
  private static final UUID SESSION = UUID.fromString("5a5a5a5a-0000-4000-8000-000000000001");

  @TempDir Path runDir;

  @Test
  void aPostedPayoutReadFromTheRealSchemasIsCheckedCleanRowForRow() throws Exception {
    execute(
        lockdb,
        "INSERT INTO lock_event (lock_key, token, session_id, kind) VALUES"
            + " ('payout:acc-1', 5, '"
            + SESSION
            + "', 'ACQUIRED')",
        "INSERT INTO lock_event (lock_key, token, session_id, kind) VALUES"
            + " ('payout:acc-1', 5, '"
            + SESSION
            + "', 'RELEASED')");
    execute(
        paydb,
        "INSERT INTO account (id, kind, currency) VALUES ('acc-1', 'CUSTOMER', 'EUR')",
        "INSERT INTO ledger_group (id, kind, actor) VALUES"
            + " ('00000000-0000-4000-8000-00000000f001', 'FUNDING', 'fixture')",
        "INSERT INTO ledger_entry (group_id, account_id, counterparty_account_id, signed_amount)"
            + " VALUES ('00000000-0000-4000-8000-00000000f001', 'acc-1', 'funding-source', 10000),"
            + " ('00000000-0000-4000-8000-00000000f001', 'funding-source', 'acc-1', -10000)",
        "UPDATE account SET balance_minor = balance_minor + 10000 WHERE id = 'acc-1'",
        "UPDATE account SET balance_minor = balance_minor - 10000 WHERE id = 'funding-source'");
    execute(
        paydb,
        "INSERT INTO payout (id, account_id, amount_minor, currency, beneficiary_ref) VALUES ('"
            + PAYOUT
            + "', 'acc-1', 2500, 'EUR', 'ben-1')",
        "UPDATE account SET fence = 5 WHERE id = 'acc-1'",
        "UPDATE payout SET state = 'POSTED', token_stamp = 5, rail_reference = 'RAIL-1',"
            + " finished_at = now() WHERE id = '"
            + PAYOUT
            + "'",
        audit("PENDING", "CLAIMED"),
        audit("CLAIMED", "RAIL_SUBMITTED"),
        audit("RAIL_SUBMITTED", "RAIL_ACKED"),
        audit("RAIL_ACKED", "POSTED"),
        "INSERT INTO ledger_group (id, kind, payout_id, fencing_token, actor) VALUES"
            + " ('00000000-0000-4000-8000-00000000a001', 'PAYOUT_POSTING', '"
            + PAYOUT
            + "', 5, 'w1')",
        "INSERT INTO ledger_entry (group_id, account_id, counterparty_account_id, signed_amount,"
            + " payout_id, fencing_token) VALUES"
            + " ('00000000-0000-4000-8000-00000000a001', 'acc-1', 'payout-clearing', -2500, '"
            + PAYOUT
            + "', 5),"
            + " ('00000000-0000-4000-8000-00000000a001', 'payout-clearing', 'acc-1', 2500, '"
            + PAYOUT
            + "', 5)",
        "UPDATE account SET balance_minor = balance_minor - 2500 WHERE id = 'acc-1'",
        "UPDATE account SET balance_minor = balance_minor + 2500 WHERE id = 'payout-clearing'");
    execute(
        proxydb,
        "INSERT INTO account_high_water (account_id, high_water) VALUES ('acc-1', 5)",
        "INSERT INTO rail_submission (payout_id, account_id, fencing_token, client_reference,"
            + " amount_minor, currency, beneficiary_ref, outcome, rail_reference, resolved_at)"
            + " VALUES ('"
            + PAYOUT
            + "', 'acc-1', 5, '"
            + REFERENCE
            + "', 2500, 'EUR', 'ben-1', 'ACKED', 'RAIL-1', clock_timestamp())",
        "INSERT INTO submission_rejection (reason, payout_id, account_id, presented_token,"
            + " high_water, client_reference) VALUES ('FENCED', '"
            + PAYOUT
            + "', 'acc-1', 3, 5, '"
            + REFERENCE
            + "')");

    History history = new History();
    try (Connection c = lockdb.dataSource().getConnection()) {
      Extractors.lockdb(c).forEach(history::add);
    }
    try (Connection c = paydb.dataSource().getConnection()) {
      Extractors.paydb(c).forEach(history::add);
    }
    try (Connection c = proxydb.dataSource().getConnection()) {
      Extractors.proxydb(c).forEach(history::add);
    }
    Extractors.railMovements(movementsJson()).forEach(history::add);

    assertThat(history.grants)
        .extracting(Grant::key, Grant::token, Grant::kind, Grant::session)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("payout:acc-1", 5L, "ACQUIRED", SESSION.toString()),
            org.assertj.core.groups.Tuple.tuple(
                "payout:acc-1", 5L, "RELEASED", SESSION.toString()));
    assertThat(history.accounts)
        .extracting(Account::id, Account::balance, Account::fence)
        .contains(
            org.assertj.core.groups.Tuple.tuple("acc-1", 7500L, 5L),
            org.assertj.core.groups.Tuple.tuple("payout-clearing", 2500L, 0L),
            org.assertj.core.groups.Tuple.tuple("funding-source", -10000L, 0L));
    assertThat(history.payouts)
        .containsExactly(
            new Payout("paydb", PAYOUT.toString(), "acc-1", "POSTED", REFERENCE, 5L, "RAIL-1"));
    assertThat(history.ledgerEntries)
        .extracting(LedgerEntry::account, LedgerEntry::signedAmount, LedgerEntry::payoutId)
        .hasSize(4)
        .contains(org.assertj.core.groups.Tuple.tuple("acc-1", -2500L, PAYOUT.toString()));
    assertThat(history.transitions)
        .extracting(Transition::from, Transition::to, Transition::token)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("PENDING", "CLAIMED", 5L),
            org.assertj.core.groups.Tuple.tuple("CLAIMED", "RAIL_SUBMITTED", 5L),
            org.assertj.core.groups.Tuple.tuple("RAIL_SUBMITTED", "RAIL_ACKED", 5L),
            org.assertj.core.groups.Tuple.tuple("RAIL_ACKED", "POSTED", 5L));
    assertThat(history.submissions)
        .extracting(
            Submission::payoutId, Submission::token, Submission::outcome, Submission::guarded)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(PAYOUT.toString(), 5L, "ACKED", true));
    assertThat(history.guardDecisions)
        .extracting(GuardDecision::guard, GuardDecision::token, GuardDecision::decision)
        .containsOnly(
            org.assertj.core.groups.Tuple.tuple("PAYDB", 5L, "ACCEPTED"),
            org.assertj.core.groups.Tuple.tuple("RAIL_PROXY", 5L, "ACCEPTED"),
            org.assertj.core.groups.Tuple.tuple("RAIL_PROXY", 3L, "REJECTED"));
    assertThat(history.railMovements)
        .extracting(RailMovement::clientReference, RailMovement::railReference)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(REFERENCE, "RAIL-1"));

    CheckReport report = new Checker().check(history);
    assertThat(report.safety())
        .allSatisfy((check, counter) -> assertThat(counter.count()).as(check).isZero());
    assertThat(report.liveness().get("guard_rejections").toString()).isEqualTo("{RAIL_PROXY=1}");

    // The same stores through the CLI, as a scenario runs it: extract, then check.
    HttpServer stub = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    stub.createContext(
        "/rail/admin/movements",
        exchange -> {
          byte[] body = movementsJson().getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    stub.start();
    try {
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      PrintStream errors = new PrintStream(err, true, StandardCharsets.UTF_8);
      PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
      int extracted =
          Main.run(
              new String[] {
                "extract",
                runDir.toString(),
                "--lockdb",
                url(lockdb),
                "--paydb",
                url(paydb),
                "--proxydb",
                url(proxydb),
                "--rail",
                "http://127.0.0.1:" + stub.getAddress().getPort()
              },
              out,
              errors);
      assertThat(extracted).as(err.toString(StandardCharsets.UTF_8)).isZero();
      assertThat(Main.run(new String[] {runDir.toString()}, out, errors)).isEqualTo(Main.SAFE);
      assertThat(runDir.resolve("rail_movement.jsonl")).exists();
      assertThat(HistoryFiles.read(runDir).payouts).isEqualTo(history.payouts);
    } finally {
      stub.stop(0);
    }
  }

  /**
   * paydb 011 (ADR 0193): a system account's movements land on its balance slots and its row keeps
   * the base. The balance read is the row's plus the slots', so INV-03 holds for a ledger written
   * that way, and a drift written into one slot is still a drift.
   */
  @Test
  void aSystemAccountsBalanceIsItsBasePlusItsSlotsAndADriftInASlotIsFound() throws Exception {
    execute(
        slottedPaydb,
        "INSERT INTO account (id, kind, currency) VALUES ('acc-s', 'CUSTOMER', 'EUR')",
        "INSERT INTO ledger_group (id, kind, actor) VALUES"
            + " ('00000000-0000-4000-8000-00000000f002', 'FUNDING', 'fixture')",
        "INSERT INTO ledger_entry (group_id, account_id, counterparty_account_id, signed_amount)"
            + " VALUES ('00000000-0000-4000-8000-00000000f002', 'acc-s', 'funding-source', 9000),"
            + " ('00000000-0000-4000-8000-00000000f002', 'funding-source', 'acc-s', -9000)",
        "UPDATE account SET balance_minor = balance_minor + 9000 WHERE id = 'acc-s'",
        // Part of funding-source's side in its base (as before 011), the rest in two slots.
        "UPDATE account SET balance_minor = balance_minor - 4000 WHERE id = 'funding-source'",
        "UPDATE account_balance_slot SET balance_minor = balance_minor - 3000"
            + " WHERE account_id = 'funding-source' AND slot = 2",
        "UPDATE account_balance_slot SET balance_minor = balance_minor - 2000"
            + " WHERE account_id = 'funding-source' AND slot = 13");

    assertThat(paydbAccounts())
        .extracting(Account::id, Account::balance)
        .contains(
            org.assertj.core.groups.Tuple.tuple("acc-s", 9000L),
            org.assertj.core.groups.Tuple.tuple("funding-source", -9000L),
            org.assertj.core.groups.Tuple.tuple("payout-clearing", 0L));
    assertThat(balanceViolations()).isZero();

    execute(
        slottedPaydb,
        "UPDATE account_balance_slot SET balance_minor = balance_minor + 1"
            + " WHERE account_id = 'payout-clearing' AND slot = 7");

    assertThat(balanceViolations()).isEqualTo(1);
  }

  private static List<Account> paydbAccounts() throws SQLException {
    History history = new History();
    try (Connection c = slottedPaydb.dataSource().getConnection()) {
      Extractors.paydb(c).forEach(history::add);
    }
    return history.accounts;
  }

  private static long balanceViolations() throws SQLException {
    History history = new History();
    try (Connection c = slottedPaydb.dataSource().getConnection()) {
      Extractors.paydb(c).forEach(history::add);
    }
    return new Checker().check(history).safety().get("balance_not_ledger_sum").count();
  }

  private static String url(EmbeddedPostgresExtension db) {
    String url = db.jdbcUrl();
    return url
        + (url.contains("?") ? "&" : "?")
        + "user="
        + db.database().username()
        + "&password="
        + db.database().password();
  }

  private static String movementsJson() {
    return "{\"movements\":[{\"railReference\":\"RAIL-1\",\"clientReference\":\""
        + REFERENCE
        + "\",\"amountMinor\":2500,\"currency\":\"EUR\",\"beneficiaryRef\":\"ben-1\","
        + "\"status\":\"SETTLED\",\"receivedAt\":\"2026-11-29T10:00:01Z\","
        + "\"visibleAt\":\"2026-11-29T10:00:01Z\"}]}";
  }

  private static String audit(String from, String to) {
    return "INSERT INTO audit_event (actor_role, actor_id, fencing_token, account_id, payout_id,"
        + " action, from_state, to_state) VALUES ('WORKER', 'w1', 5, 'acc-1', '"
        + PAYOUT
        + "', 'TRANSITION', '"
        + from
        + "', '"
        + to
        + "')";
  }

  /** Runs the statements in one transaction (paydb's ledger groups balance at COMMIT). */
  private static void execute(EmbeddedPostgresExtension db, String... statements)
      throws SQLException {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        for (String sql : List.of(statements)) {
          s.execute(sql);
        }
      }
      c.commit();
    }
  }
}
