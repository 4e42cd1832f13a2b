package dev.fencepost.payment.impl;

import dev.fencepost.payment.InvalidAmountException;
import java.sql.SQLException;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessException;
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
 */
public final class Transactions {

  private static final String NUMERIC_VALUE_OUT_OF_RANGE = "22003";

  private final TransactionTemplate template;

  public Transactions(DataSource dataSource) {
    template = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
    template.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
    template.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
  }

  /** Runs {@code work} and commits, or rolls back on any exception and rethrows it. */
  public <T> T inTransaction(Supplier<T> work) {
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
