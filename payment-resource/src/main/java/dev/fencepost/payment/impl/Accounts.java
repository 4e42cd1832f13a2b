package dev.fencepost.payment.impl;

import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.AccountView;
import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Plain SQL over {@code account}. The fence column is written only by {@link AccountFence}; the
 * balance only by {@link Ledger}. Balances are read from view {@code account_balance}, which adds a
 * system account's {@link BalanceSlots} to its row's base.
 */
public final class Accounts {

  private final JdbcClient jdbc;

  public Accounts(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** An account's cached balance and the sum of its ledger entries, which INV-03 says are equal. */
  public record BalanceAndEntries(BigDecimal balance, BigDecimal entrySum) {
    public boolean agree() {
      return balance.compareTo(entrySum) == 0;
    }
  }

  public Optional<AccountView> find(AccountId id) {
    return select(id, "");
  }

  /**
   * Reads the account and holds its row lock until the transaction ends. A system account's slots
   * are not locked: its balance may move meanwhile.
   */
  public Optional<AccountView> lock(AccountId id) {
    return select(id, " FOR UPDATE OF a");
  }

  private Optional<AccountView> select(AccountId id, String lockClause) {
    return jdbc.sql(
            "SELECT "
                + Rows.ACCOUNT_COLUMNS
                + " FROM "
                + Rows.ACCOUNT_FROM
                + " WHERE a.id = :id"
                + lockClause)
        .param("id", id.value())
        .query(Rows.ACCOUNT)
        .optional();
  }

  /**
   * The per-account half of INV-03, read in one statement, so from one snapshot: a system account's
   * slots and its entries are committed together, whatever postings run meanwhile. Empty when the
   * account is unknown.
   */
  public Optional<BalanceAndEntries> balanceAndEntries(AccountId id) {
    return jdbc.sql(
            """
            SELECT b.balance_minor,
                   (SELECT coalesce(sum(e.signed_amount), 0)
                      FROM ledger_entry e WHERE e.account_id = b.account_id)
              FROM account_balance b WHERE b.account_id = :account""")
        .param("account", id.value())
        .query((rs, row) -> new BalanceAndEntries(rs.getBigDecimal(1), rs.getBigDecimal(2)))
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
                + " FROM "
                + Rows.ACCOUNT_FROM
                + " WHERE a.kind IN ('PAYOUT_CLEARING', 'FUNDING_SOURCE') ORDER BY a.id")
        .query(Rows.ACCOUNT)
        .list();
  }
}
