package dev.fencepost.payment.impl;

import dev.fencepost.lock.FencedOutException;
import dev.fencepost.lock.FencingToken;
import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.FencingMode;
import dev.fencepost.payment.PayoutId;
import dev.fencepost.payment.PayoutNotFoundException;
import java.util.Optional;
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

  /**
   * THE fence predicate. Zero rows means a newer token has been accepted for this account (or the
   * payout does not exist). The payout names its account in the same statement rather than in a
   * read before it (ADR 0204): a payout's account never changes (a trigger forbids it), so the join
   * finds the same row a separate read would, one round trip sooner.
   */
  private static final String ADVANCE_IF_NOT_STALE =
      """
      UPDATE account a
         SET fence = :token, version = a.version + 1, updated_at = now()
        FROM payout p
       WHERE p.id = :payout AND a.id = p.account_id AND a.fence <= :token
      RETURNING a.id""";

  /**
   * FR-29 negative control only: no predicate, so a stale write lands. GREATEST keeps the fence
   * itself monotonic, so the experiment shows exactly one thing: what a stale holder does once the
   * guard stops refusing it.
   */
  private static final String ADVANCE_WITHOUT_FENCING_EXPERIMENT =
      """
      UPDATE account a
         SET fence = GREATEST(a.fence, :token), version = a.version + 1, updated_at = now()
        FROM payout p
       WHERE p.id = :payout AND a.id = p.account_id
      RETURNING a.id""";

  private final JdbcClient jdbc;
  private final FencingMode mode;

  public AccountFence(JdbcClient jdbc, FencingMode mode) {
    this.jdbc = jdbc;
    this.mode = mode;
  }

  /**
   * Advances the fence of the account that owns {@code payout} to {@code token}, or throws.
   *
   * @return the payout's account, whose row this transaction now holds locked
   * @throws FencedOutException when a newer token has already been accepted (nothing changed)
   * @throws PayoutNotFoundException when the payout does not exist
   */
  public AccountId advance(PayoutId payout, FencingToken token, String owner) {
    String statement =
        mode == FencingMode.ENFORCED ? ADVANCE_IF_NOT_STALE : ADVANCE_WITHOUT_FENCING_EXPERIMENT;
    Optional<String> advanced =
        jdbc.sql(statement)
            .param("token", token.value())
            .param("payout", payout.value())
            .query(String.class)
            .optional();
    if (advanced.isPresent()) {
      return AccountId.of(advanced.get());
    }
    // Only for the error report: the decision above was already made by the database.
    StoredFence stored =
        jdbc.sql(
                """
                SELECT a.id, a.fence FROM payout p JOIN account a ON a.id = p.account_id
                 WHERE p.id = :payout""")
            .param("payout", payout.value())
            .query((rs, row) -> new StoredFence(AccountId.of(rs.getString(1)), rs.getLong(2)))
            .optional()
            .orElseThrow(() -> new PayoutNotFoundException(payout));
    throw new FencedOutException(
        stored.account().lockKey().value(), token.value(), stored.fence(), owner);
  }

  private record StoredFence(AccountId account, long fence) {}

  public FencingMode mode() {
    return mode;
  }
}
