package dev.fencepost.payment;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A real pool seen through a window: records what the library asks of each connection it takes, the
 * statements it prepares (each one a round trip to PostgreSQL) and the calls that ask or set the
 * isolation level (PostgreSQL's driver answers {@code getTransactionIsolation} with a round trip
 * too). Everything is passed on to the real connection unchanged.
 */
final class CountingDataSource extends DelegatingDataSource {

  private static final List<String> ISOLATION =
      List.of("getTransactionIsolation", "setTransactionIsolation");

  private final List<String> statements = new ArrayList<>();
  private final Map<String, Long> isolationCalls = new TreeMap<>();
  private long connections;

  CountingDataSource(DataSource target) {
    super(target);
  }

  @Override
  public Connection getConnection() throws SQLException {
    Connection real = super.getConnection();
    synchronized (this) {
      connections++;
    }
    InvocationHandler counting =
        (proxy, method, args) -> {
          String name = method.getName();
          synchronized (this) {
            if (ISOLATION.contains(name)) {
              isolationCalls.merge(name, 1L, Long::sum);
            }
            if (name.equals("prepareStatement") || name.equals("prepareCall")) {
              statements.add(((String) args[0]).replaceAll("\\s+", " ").strip());
            }
          }
          try {
            return method.invoke(real, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        };
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, counting);
  }

  /** Forgets everything seen so far. */
  synchronized void reset() {
    statements.clear();
    isolationCalls.clear();
    connections = 0;
  }

  synchronized List<String> statements() {
    return List.copyOf(statements);
  }

  synchronized Map<String, Long> isolationCalls() {
    return Map.copyOf(isolationCalls);
  }

  synchronized long connections() {
    return connections;
  }
}
