package dev.fencepost.payment.impl;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.LedgerImbalanceException;
import dev.fencepost.payment.Payout;
import java.math.BigDecimal;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Writes money movements (FR-25, INV-03): one group of two legs that sum to zero, and the cached
 * balances of both accounts, inside the caller's transaction. Before returning it asserts, still
 * inside that transaction, that the group sums to zero and that the customer account's balance
 * equals the sum of its entries; otherwise it throws and everything rolls back.
 *
 * <p>The database checks the group again at COMMIT (a deferred constraint trigger), and {@link
 * dev.fencepost.payment.LedgerAudit} checks every group and every account for the reconciler. The
 * clearing and funding-source balances are not re-summed here: they have an entry per movement of
 * every account, so summing them per posting would grow without bound; the reconciler does it.
 *
 * <p>The system account's side goes to one of its {@link BalanceSlots} (ADR 0193), as the last
 * statement here: every other posting and funding of the platform may need that row, so it is
 * locked as late as the movement allows, and the customer's side and the assertions, which wait for
 * nobody else, come before it.
 */
public final class Ledger {

  private final JdbcClient jdbc;
  private final Accounts accounts;
  private final BalanceSlots slots;
  private final PaymentSignals signals;

  public Ledger(JdbcClient jdbc, PaymentSignals signals) {
    this.jdbc = jdbc;
    this.accounts = new Accounts(jdbc);
    this.slots = new BalanceSlots(jdbc);
    this.signals = signals;
  }

  /** RAIL_ACKED -> POSTED: debit the customer, credit payout-clearing, under {@code token}. */
  public UUID postPayout(Payout payout, FencingToken token, String actor) {
    UUID group = UUID.randomUUID();
    jdbc.sql(
            """
            INSERT INTO ledger_group (id, kind, payout_id, fencing_token, actor)
            VALUES (:id, 'PAYOUT_POSTING', :payout, :token, :actor)""")
        .param("id", group)
        .param("payout", payout.id().value())
        .param("token", token.value())
        .param("actor", actor)
        .update();
    long amount = payout.amountMinor();
    Long tokenValue = token.value();
    legs(group, payout.accountId(), AccountId.PAYOUT_CLEARING, amount, payout, tokenValue);
    addToBalance(payout.accountId(), -amount);
    assertBalanced(group, payout.accountId());
    addToSlot(AccountId.PAYOUT_CLEARING, BalanceSlots.ofPayout(payout.id()), amount);
    return group;
  }

  /** ADR 0033: money enters a customer account only as a balanced group from funding-source. */
  public UUID fund(AccountId account, long amountMinor, String actor) {
    UUID group = UUID.randomUUID();
    jdbc.sql("INSERT INTO ledger_group (id, kind, actor) VALUES (:id, 'FUNDING', :actor)")
        .param("id", group)
        .param("actor", actor)
        .update();
    legs(group, AccountId.FUNDING_SOURCE, account, amountMinor, null, null);
    addToBalance(account, amountMinor);
    assertBalanced(group, account);
    addToSlot(AccountId.FUNDING_SOURCE, BalanceSlots.ofFundedAccount(account), -amountMinor);
    return group;
  }

  /**
   * Both legs of a movement of {@code amount} from {@code from} to {@code to}, in one statement:
   * the debit and the credit travel and land together (ADR 0204). The group's balance is still
   * asserted afterwards from what was stored, not from what was sent.
   */
  private void legs(
      UUID group, AccountId from, AccountId to, long amount, Payout payout, Long token) {
    jdbc.sql(
            """
            INSERT INTO ledger_entry (group_id, account_id, counterparty_account_id,
                                      signed_amount, payout_id, fencing_token)
            VALUES (:group, :from, :to, :debit, :payout, :token),
                   (:group, :to, :from, :credit, :payout, :token)""")
        .param("group", group)
        .param("from", from.value())
        .param("to", to.value())
        .param("debit", -amount)
        .param("credit", amount)
        .param("payout", payout == null ? null : payout.id().value())
        .param("token", token)
        .update();
  }

  private void addToSlot(AccountId systemAccount, int slot, long signedAmount) {
    try {
      slots.add(systemAccount, slot, signedAmount);
    } catch (LedgerImbalanceException e) {
      signals.ledgerAssertionFailed("account_balance", systemAccount.value(), e.getMessage());
      throw e;
    }
  }

  /** A customer account's balance, on the row its fence already holds. */
  private void addToBalance(AccountId account, long signedAmount) {
    jdbc.sql(
            """
            UPDATE account
               SET balance_minor = balance_minor + :amount, version = version + 1,
                   updated_at = now()
             WHERE id = :account""")
        .param("amount", signedAmount)
        .param("account", account.value())
        .update();
  }

  private void assertBalanced(UUID group, AccountId account) {
    BigDecimal groupSum =
        jdbc.sql("SELECT coalesce(sum(signed_amount), 0) FROM ledger_entry WHERE group_id = :g")
            .param("g", group)
            .query(BigDecimal.class)
            .single();
    if (groupSum.signum() != 0) {
      signals.ledgerAssertionFailed("group_sum", group.toString(), "sum " + groupSum);
      throw new LedgerImbalanceException(
          "ledger group " + group + " sums to " + groupSum + ", not 0; rolled back (INV-03)");
    }
    Accounts.BalanceAndEntries balance = accounts.balanceAndEntries(account).orElseThrow();
    if (!balance.agree()) {
      signals.ledgerAssertionFailed(
          "account_balance",
          account.value(),
          "balance " + balance.balance() + ", entries " + balance.entrySum());
      throw new LedgerImbalanceException(
          "account "
              + account
              + " balance "
              + balance.balance()
              + " differs from the sum of its entries "
              + balance.entrySum()
              + "; rolled back (INV-03)");
    }
  }
}
