package dev.fencepost.payment.impl;

import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.AccountView;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Plain SQL over {@code account}. The fence column is written only by {@link AccountFence}; the
 * balance only by {@link Ledger}.
 */
public final class Accounts {

  private final JdbcClient jdbc;

  public Accounts(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  public Optional<AccountView> find(AccountId id) {
    return jdbc.sql("SELECT " + Rows.ACCOUNT_COLUMNS + " FROM account WHERE id = :id")
        .param("id", id.value())
        .query(Rows.ACCOUNT)
        .optional();
  }

  /** Reads the account and holds its row lock until the transaction ends. */
  public Optional<AccountView> lock(AccountId id) {
    return jdbc.sql("SELECT " + Rows.ACCOUNT_COLUMNS + " FROM account WHERE id = :id FOR UPDATE")
        .param("id", id.value())
        .query(Rows.ACCOUNT)
        .optional();
  }

  public void insertCustomer(AccountId id, String currency) {
    jdbc.sql("INSERT INTO account (id, kind, currency) VALUES (:id, 'CUSTOMER', :currency)")
        .param("id", id.value())
        .param("currency", currency)
        .update();
  }

  /** The system accounts as stored, for the startup check. */
  public List<AccountView> systemAccounts() {
    return jdbc.sql(
            "SELECT "
                + Rows.ACCOUNT_COLUMNS
                + " FROM account WHERE kind IN ('PAYOUT_CLEARING', 'FUNDING_SOURCE') ORDER BY id")
        .query(Rows.ACCOUNT)
        .list();
  }
}
