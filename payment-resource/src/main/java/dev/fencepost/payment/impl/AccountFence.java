package dev.fencepost.payment.impl;

import dev.fencepost.lock.FencedOutException;
import dev.fencepost.lock.FencingToken;
import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.AccountNotFoundException;
import dev.fencepost.payment.FencingMode;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The guard (ADR 0036, FR-15, INV-01, INV-05). Every mutation of paydb calls {@link #advance}
 * first, in its own transaction, and proceeds only if it returns.
 *
 * <p>It is one statement on purpose. Reading the fence and then writing in a second statement would
 * let another holder advance it in between; here PostgreSQL evaluates the predicate and takes the
 * row lock atomically, and the lock serialises every other writer of the account until this
 * transaction ends. {@code <=} rather than {@code <} because one grant writes several times under
 * its token (claim, later the posting); tokens are unique per grant, so equality is the same
 * holder.
 */
public final class AccountFence {

  /** THE fence predicate. Zero rows means a newer token has been accepted for this account. */
  private static final String ADVANCE_IF_NOT_STALE =
      """
      UPDATE account
         SET fence = :token, version = version + 1, updated_at = now()
       WHERE id = :account AND fence <= :token""";

  /**
   * FR-29 negative control only: no predicate, so a stale write lands. GREATEST keeps the fence
   * itself monotonic, so the experiment shows exactly one thing: what a stale holder does once the
   * guard stops refusing it.
   */
  private static final String ADVANCE_WITHOUT_FENCING_EXPERIMENT =
      """
      UPDATE account
         SET fence = GREATEST(fence, :token), version = version + 1, updated_at = now()
       WHERE id = :account""";

  private final JdbcClient jdbc;
  private final FencingMode mode;

  public AccountFence(JdbcClient jdbc, FencingMode mode) {
    this.jdbc = jdbc;
    this.mode = mode;
  }

  /**
   * Advances the account's fence to {@code token}, or throws.
   *
   * @throws FencedOutException when a newer token has already been accepted (nothing changed)
   * @throws AccountNotFoundException when the account does not exist
   */
  public void advance(AccountId account, FencingToken token, String owner) {
    String statement =
        mode == FencingMode.ENFORCED ? ADVANCE_IF_NOT_STALE : ADVANCE_WITHOUT_FENCING_EXPERIMENT;
    int rows =
        jdbc.sql(statement)
            .param("token", token.value())
            .param("account", account.value())
            .update();
    if (rows == 1) {
      return;
    }
    // Only for the error report: the decision above was already made by the database.
    long storedFence =
        jdbc.sql("SELECT fence FROM account WHERE id = :account")
            .param("account", account.value())
            .query(Long.class)
            .optional()
            .orElseThrow(() -> new AccountNotFoundException(account));
    throw new FencedOutException(account.lockKey().value(), token.value(), storedFence, owner);
  }

  public FencingMode mode() {
    return mode;
  }
}
