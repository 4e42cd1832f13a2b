package dev.fencepost.payment;

import dev.fencepost.payment.impl.Accounts;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The INV-03 checks, read-only, for the reconciler (UC-07) and for tests: every ledger group sums
 * to zero, every account's balance equals the sum of its entries, the whole ledger sums to zero
 * (ADR 0033), and a payout is POSTED exactly when it has a posting group. The same conditions are
 * asserted inside every writing transaction; these queries find what got past them (a disabled
 * trigger, a manual edit, a bug).
 *
 * <p>Sums are computed in SQL as {@code numeric}, so a corrupted ledger is reported, never
 * overflowed. Each check returns at most {@code limit} samples (1..1000) and an exact count.
 */
public final class LedgerAudit {

  /** A ledger group that does not sum to zero or has fewer than two legs. */
  public record UnbalancedGroup(UUID groupId, BigInteger sum, long legs) {}

  /**
   * An account whose cached balance (for a system account its base plus its slots) differs from the
   * sum of its entries.
   */
  public record BalanceDrift(AccountId accountId, long balanceMinor, BigInteger ledgerSum) {}

  /**
   * A payout whose state disagrees with the ledger: POSTED without a posting group, or a posting
   * group for a payout that is not POSTED.
   */
  public record PostingMismatch(PayoutId payoutId, PayoutState state, boolean hasPostingGroup) {}

  /**
   * The result of {@link #check}. {@link #clean()} is the expected answer, and it is still an
   * answer: a reconciler reports it so a silent reconciler is distinguishable from a healthy ledger
   * (UC-07).
   */
  public record Report(
      BigInteger globalSum,
      long unbalancedGroupCount,
      List<UnbalancedGroup> unbalancedGroups,
      long balanceDriftCount,
      List<BalanceDrift> balanceDrifts,
      long postingMismatchCount,
      List<PostingMismatch> postingMismatches) {

    public boolean clean() {
      return globalSum.signum() == 0
          && unbalancedGroupCount == 0
          && balanceDriftCount == 0
          && postingMismatchCount == 0;
    }
  }

  private static final String UNBALANCED_GROUPS =
      """
      SELECT g.id, coalesce(sum(e.signed_amount), 0) AS total, count(e.id) AS legs
        FROM ledger_group g LEFT JOIN ledger_entry e ON e.group_id = g.id
       GROUP BY g.id
      HAVING coalesce(sum(e.signed_amount), 0) <> 0 OR count(e.id) < 2""";

  // The whole balance (base plus a system account's slots, ADR 0193) against the entries, in one
  // statement: a posting commits its slot and its entries together, so one snapshot sees both.
  private static final String BALANCE_DRIFTS =
      """
      SELECT b.account_id AS id, b.balance_minor, coalesce(s.total, 0) AS total
        FROM account_balance b
        LEFT JOIN (SELECT account_id, sum(signed_amount) AS total
                     FROM ledger_entry GROUP BY account_id) s ON s.account_id = b.account_id
       WHERE b.balance_minor <> coalesce(s.total, 0)""";

  private static final String POSTING_MISMATCHES =
      """
      SELECT p.id, p.state, (g.id IS NOT NULL) AS has_group
        FROM payout p
        LEFT JOIN ledger_group g ON g.payout_id = p.id AND g.kind = 'PAYOUT_POSTING'
       WHERE (p.state = 'POSTED') <> (g.id IS NOT NULL)""";

  private final JdbcClient jdbc;
  private final Accounts accounts;

  public LedgerAudit(DataSource dataSource) {
    this.jdbc = JdbcClient.create(dataSource);
    this.accounts = new Accounts(jdbc);
  }

  /** All checks over the whole of paydb. */
  public Report check(int limit) {
    int page = Checks.pageSize(limit);
    return new Report(
        globalSum(),
        count(UNBALANCED_GROUPS),
        jdbc.sql(UNBALANCED_GROUPS + " ORDER BY g.id LIMIT :limit")
            .param("limit", page)
            .query(
                (rs, row) ->
                    new UnbalancedGroup(
                        rs.getObject("id", UUID.class),
                        integer(rs.getBigDecimal("total")),
                        rs.getLong("legs")))
            .list(),
        count(BALANCE_DRIFTS),
        jdbc.sql(BALANCE_DRIFTS + " ORDER BY b.account_id LIMIT :limit")
            .param("limit", page)
            .query(
                (rs, row) ->
                    new BalanceDrift(
                        AccountId.of(rs.getString("id")),
                        rs.getLong("balance_minor"),
                        integer(rs.getBigDecimal("total"))))
            .list(),
        count(POSTING_MISMATCHES),
        jdbc.sql(POSTING_MISMATCHES + " ORDER BY p.id LIMIT :limit")
            .param("limit", page)
            .query(
                (rs, row) ->
                    new PostingMismatch(
                        PayoutId.of(rs.getObject("id", UUID.class)),
                        PayoutState.valueOf(rs.getString("state")),
                        rs.getBoolean("has_group")))
            .list());
  }

  /**
   * The sum of every ledger entry; zero because every group balances, funding included (ADR 0033).
   */
  public BigInteger globalSum() {
    return integer(
        jdbc.sql("SELECT coalesce(sum(signed_amount), 0) FROM ledger_entry")
            .query(BigDecimal.class)
            .single());
  }

  /** The per-account half of INV-03 for one account; empty when it holds. */
  public Optional<BalanceDrift> driftOf(AccountId account) {
    Checks.present(account, "an account id");
    Accounts.BalanceAndEntries balance =
        accounts
            .balanceAndEntries(account)
            .orElseThrow(() -> new AccountNotFoundException(account));
    if (balance.agree()) {
      return Optional.empty();
    }
    return Optional.of(
        new BalanceDrift(account, balance.balance().longValueExact(), integer(balance.entrySum())));
  }

  private long count(String query) {
    return jdbc.sql("SELECT count(*) FROM (" + query + ") found").query(Long.class).single();
  }

  private static BigInteger integer(BigDecimal value) {
    return value.toBigIntegerExact();
  }
}
