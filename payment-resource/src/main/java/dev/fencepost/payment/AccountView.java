package dev.fencepost.payment;

import java.time.Instant;

/**
 * An account as stored in paydb. The balance is a cached projection of the ledger (INV-03); the
 * fence is the highest token this guard has accepted for the account (INV-05). Both are for
 * observation: a caller must never decide whether it may write by comparing its token with this
 * fence, because the fence can move between the read and the write.
 *
 * @param id the account
 * @param kind customer or one of the two system accounts
 * @param currency the deployment's single currency
 * @param balanceMinor balance in minor units: for a system account, its row's base plus its balance
 *     slots (ADR 0193)
 * @param fence highest accepted token, 0 before the first fenced write
 * @param version incremented by every write to the row
 * @param createdAt when it was created
 * @param updatedAt when the row last changed
 */
public record AccountView(
    AccountId id,
    Kind kind,
    String currency,
    long balanceMinor,
    long fence,
    long version,
    Instant createdAt,
    Instant updatedAt) {

  /** What an account is for. */
  public enum Kind {
    /** A party funds are paid out from; owns payouts; carries the fence. */
    CUSTOMER,
    /** Receives the credit leg of every payout posting. */
    PAYOUT_CLEARING,
    /** Counterparty of every funding group (ADR 0033). */
    FUNDING_SOURCE
  }
}
