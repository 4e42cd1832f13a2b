package dev.fencepost.payment.impl;

import dev.fencepost.payment.InvalidAmountException;
import java.sql.SQLException;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs each library call in a transaction of its own.
 *
 * <p>REQUIRES_NEW: when a call returns, its transition is committed, whatever transaction the
 * caller may have open, so the events logged after it are true (docs/decisions/0032).
 *
 * <p>READ COMMITTED on purpose: when two fenced statements race on one account row, PostgreSQL
 * makes the second wait for the first and then re-evaluates {@code fence <= :token} against the
 * committed row. That re-check is what makes the single statement a correct guard; REPEATABLE READ
 * would turn the same race into a serialization error instead.
 *
 * <p>The level is the connection's own, checked once ({@link #requireReadCommitted}) rather than
 * set on every transaction: asking for it per transaction makes the driver send {@code SHOW
 * TRANSACTION ISOLATION LEVEL} first, one round trip per transaction for an answer that never
 * changes (docs/decisions/0204).
 */
public final class Transactions {

  private static final String NUMERIC_VALUE_OUT_OF_RANGE = "22003";
  private static final String READ_COMMITTED = "read committed";

  private final TransactionTemplate template;
  private final JdbcClient jdbc;
  private volatile boolean verified;

  public Transactions(DataSource dataSource) {
    template = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
    template.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
    jdbc = JdbcClient.create(dataSource);
  }

  /**
   * Checks that a transaction on this DataSource runs at READ COMMITTED, PostgreSQL's default; a
   * database, role or pool that sets another default is refused. Runs once; every {@link
   * #inTransaction} runs it first, so no work is done at another level.
   *
   * @throws IllegalStateException when transactions would run at another level (nothing changed)
   */
  public void requireReadCommitted() {
    if (verified) {
      return;
    }
    String level =
        jdbc.sql("SELECT current_setting('transaction_isolation')").query(String.class).single();
    if (!READ_COMMITTED.equals(level)) {
      throw new IllegalStateException(
          "paydb transactions would run at '"
              + level
              + "', but the fence needs '"
              + READ_COMMITTED
              + "' (PostgreSQL's default): remove default_transaction_isolation from the database,"
              + " the role and the connection pool (docs/decisions/0204)");
    }
    verified = true;
  }

  /** Runs {@code work} and commits, or rolls back on any exception and rethrows it. */
  public <T> T inTransaction(Supplier<T> work) {
    requireReadCommitted();
    try {
      return template.execute(status -> work.get());
    } catch (DataAccessException e) {
      if (NUMERIC_VALUE_OUT_OF_RANGE.equals(sqlState(e))) {
        throw new InvalidAmountException("the amount would overflow a balance; nothing changed", e);
      }
      throw e;
    }
  }

  private static String sqlState(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        return sql.getSQLState();
      }
    }
    return null;
  }
}
