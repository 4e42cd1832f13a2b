package dev.fencepost.payoutjob;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A real paydb seen through its statements: a data source that counts, or refuses as an unreachable
 * server would, every statement prepared with a given fragment of SQL, and passes everything else
 * to paydb untouched.
 */
final class PaydbStatements {

  /** The fragment of {@code nextPending}'s SQL and of no other statement the job prepares. */
  static final String NEXT_PENDING = "q.account_id = ?";

  private PaydbStatements() {}

  /** {@code target}, with each statement containing {@code fragment} counted in {@code count}. */
  static DataSource counting(DataSource target, String fragment, AtomicInteger count) {
    return watching(target, fragment, count::incrementAndGet);
  }

  /** {@code target}, refusing each statement containing {@code fragment} with SQLState 08006. */
  static DataSource refusing(DataSource target, String fragment) {
    return watching(
        target,
        fragment,
        () -> {
          throw new SQLException("paydb unreachable (test)", "08006");
        });
  }

  private interface Matched {
    void run() throws SQLException;
  }

  private static DataSource watching(DataSource target, String fragment, Matched matched) {
    return new DelegatingDataSource(target) {
      @Override
      public Connection getConnection() throws SQLException {
        Connection connection = super.getConnection();
        return (Connection)
            Proxy.newProxyInstance(
                Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("prepareStatement")
                      && args[0] instanceof String sql
                      && sql.contains(fragment)) {
                    matched.run();
                  }
                  try {
                    return method.invoke(connection, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
      }
    };
  }
}
