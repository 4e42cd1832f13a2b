package dev.fencepost.payment.impl;

import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.LedgerImbalanceException;
import dev.fencepost.payment.PayoutId;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The slotted balances of the two system accounts (ADR 0193, changelog paydb-011). Every posting
 * moves payout-clearing and every funding moves funding-source: on one row, each of those
 * transactions waited for the one before it to commit. Each now adds to one of {@link #COUNT} slot
 * rows, so two of them meet only when their slots are equal. A system account's balance is its
 * account row's balance plus the sum of its slots (view {@code account_balance}), and that whole
 * balance is what INV-03 equates with the account's entries.
 *
 * <p>A slot is chosen from what the movement already names, so the choice costs no query and the
 * same movement always lands on the same slot: a posting's from its payout id (random, so postings
 * spread evenly), a funding's from the funded account (fundings of one account wait on its row
 * anyway). {@link java.util.UUID#hashCode()} and {@link String#hashCode()} are specified, so the
 * choice is the same on every JVM.
 */
public final class BalanceSlots {

  /** Slots per system account: the bound of the CHECK on {@code account_balance_slot.slot}. */
  public static final int COUNT = 16;

  private final JdbcClient jdbc;

  public BalanceSlots(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** The slot of payout-clearing that {@code payout}'s posting credits. */
  public static int ofPayout(PayoutId payout) {
    return Math.floorMod(payout.value().hashCode(), COUNT);
  }

  /** The slot of funding-source that a funding of {@code account} debits. */
  public static int ofFundedAccount(AccountId account) {
    return Math.floorMod(account.value().hashCode(), COUNT);
  }

  /**
   * Adds {@code signedAmount} to {@code slot} of {@code systemAccount}, holding that slot's row
   * lock until the transaction ends.
   *
   * @throws LedgerImbalanceException when the slot does not exist: the amount could not be kept in
   *     step with the ledger, so the caller's transaction must roll back
   */
  void add(AccountId systemAccount, int slot, long signedAmount) {
    int updated =
        jdbc.sql(
                """
                UPDATE account_balance_slot SET balance_minor = balance_minor + :amount
                 WHERE account_id = :account AND slot = :slot""")
            .param("amount", signedAmount)
            .param("account", systemAccount.value())
            .param("slot", slot)
            .update();
    if (updated != 1) {
      throw new LedgerImbalanceException(
          "balance slot "
              + slot
              + " of "
              + systemAccount
              + " does not exist (paydb-011 creates "
              + COUNT
              + " per system account); rolled back (INV-03)");
    }
  }

  /** The slots of {@code systemAccount} that {@link #add} may write and paydb lacks. */
  public int missing(AccountId systemAccount) {
    long present =
        jdbc.sql(
                "SELECT count(*) FROM account_balance_slot"
                    + " WHERE account_id = :account AND slot < :count")
            .param("account", systemAccount.value())
            .param("count", COUNT)
            .query(Long.class)
            .single();
    return COUNT - (int) present;
  }
}
