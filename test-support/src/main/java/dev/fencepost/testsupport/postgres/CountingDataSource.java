package dev.fencepost.testsupport.postgres;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A real pool seen through a window: records what the code under test asks of each connection it
 * takes, the statements it prepares (each one a round trip to PostgreSQL) and the calls that ask or
 * set the isolation level (PostgreSQL's driver answers {@code getTransactionIsolation} with a round
 * trip too). Everything is passed on to the real connection unchanged.
 */
public final class CountingDataSource implements DataSource {

  private static final List<String> ISOLATION =
      List.of("getTransactionIsolation", "setTransactionIsolation");

  private final DataSource target;
  private final List<String> statements = new ArrayList<>();
  private final Map<String, Long> isolationCalls = new TreeMap<>();
  private long connections;

  public CountingDataSource(DataSource target) {
    this.target = target;
  }

  @Override
  public Connection getConnection() throws SQLException {
    return counted(target.getConnection());
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    return counted(target.getConnection(username, password));
  }

  private Connection counted(Connection real) {
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
  public synchronized void reset() {
    statements.clear();
    isolationCalls.clear();
    connections = 0;
  }

  /** The statements prepared since the last {@link #reset}, whitespace folded, in order. */
  public synchronized List<String> statements() {
    return List.copyOf(statements);
  }

  public synchronized Map<String, Long> isolationCalls() {
    return Map.copyOf(isolationCalls);
  }

  public synchronized long connections() {
    return connections;
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return target.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    target.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    target.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return target.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return target.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    return iface.isInstance(this) ? iface.cast(this) : target.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return iface.isInstance(this) || target.isWrapperFor(iface);
  }
}
