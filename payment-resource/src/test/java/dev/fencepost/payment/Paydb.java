package dev.fencepost.payment;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/** Direct SQL access to a test's paydb, for arranging corruption and for asserting on rows. */
final class Paydb {

  static final String CHANGELOG = "db/changelog/paydb/db.changelog-master.yaml";

  private static final Map<String, String> TABLES_BY_KEY =
      Map.of(
          "account", "id",
          "account_balance_slot", "account_id, slot",
          "payout", "id",
          "ledger_group", "id",
          "ledger_entry", "id",
          "audit_event", "id");

  private final DataSource dataSource;
  private final JdbcClient jdbc;

  Paydb(DataSource dataSource) {
    this.dataSource = dataSource;
    this.jdbc = JdbcClient.create(dataSource);
  }

  static EmbeddedPostgresExtension extension() {
    return EmbeddedPostgresExtension.withChangelog(CHANGELOG);
  }

  /**
   * A new small pool on {@code db} as the superuser, opening its connections now, at {@code
   * isolation} as Hikari names it, or at the database's own level when null. The caller closes it.
   */
  static HikariDataSource newPool(EmbeddedPostgresExtension db, String isolation) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(db.jdbcUrl());
    config.setUsername(db.database().username());
    config.setPassword(db.database().password());
    config.setMaximumPoolSize(2);
    if (isolation != null) {
      config.setTransactionIsolation(isolation);
    }
    return new HikariDataSource(config);
  }

  DataSource dataSource() {
    return dataSource;
  }

  JdbcClient jdbc() {
    return jdbc;
  }

  /** Every row of every paydb table, in key order: equal snapshots mean nothing changed. */
  Map<String, List<Map<String, Object>>> snapshot() {
    Map<String, List<Map<String, Object>>> tables = new LinkedHashMap<>();
    for (String table :
        List.of(
            "account",
            "account_balance_slot",
            "payout",
            "ledger_group",
            "ledger_entry",
            "audit_event")) {
      tables.put(
          table,
          jdbc.sql("SELECT * FROM " + table + " ORDER BY " + TABLES_BY_KEY.get(table))
              .query()
              .listOfRows());
    }
    return tables;
  }

  long count(String table) {
    return jdbc.sql("SELECT count(*) FROM " + table).query(Long.class).single();
  }

  long fence(AccountId account) {
    return jdbc.sql("SELECT fence FROM account WHERE id = :id")
        .param("id", account.value())
        .query(Long.class)
        .single();
  }

  /**
   * An account's whole balance, summed here from the tables rather than read from the view the
   * library reads: its row's base plus its slots (ADR 0193; a customer account has none).
   */
  long balance(AccountId account) {
    return jdbc.sql(
            "SELECT a.balance_minor + (SELECT coalesce(sum(s.balance_minor), 0)"
                + " FROM account_balance_slot s WHERE s.account_id = a.id)"
                + " FROM account a WHERE a.id = :id")
        .param("id", account.value())
        .query(Long.class)
        .single();
  }

  /**
   * Moves an account's stored balance by {@code delta} behind the library's back, so that it no
   * longer equals the sum of its entries: what the INV-03 checks must notice.
   */
  void corruptBalance(AccountId account, long delta) {
    jdbc.sql("UPDATE account SET balance_minor = balance_minor + :delta WHERE id = :id")
        .param("delta", delta)
        .param("id", account.value())
        .update();
  }

  /** Audit rows of one payout, oldest first, as (action, from, to, token, actor). */
  List<Map<String, Object>> auditOf(PayoutId payout) {
    return jdbc.sql(
            "SELECT action, from_state, to_state, fencing_token, actor_role, actor_id, reason"
                + " FROM audit_event WHERE payout_id = :p ORDER BY id")
        .param("p", payout.value())
        .query()
        .listOfRows();
  }
}
