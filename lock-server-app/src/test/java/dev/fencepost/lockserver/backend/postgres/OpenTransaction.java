package dev.fencepost.lockserver.backend.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.UUID;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * A transaction on a lockdb connection of its own, left open until the test commits it or closes
 * this (which rolls it back): how a test holds the row locks of a statement of the backend (the
 * acquire function, the keepalive statement) while other calls run against them. Its first
 * statement, in the constructor, starts the transaction, so {@code now()} inside it is fixed from
 * then on. A statement of it that waits 30 s for a lock fails ({@code lock_timeout}).
 */
final class OpenTransaction implements AutoCloseable {

  private final Connection connection;
  private final JdbcClient sql;
  private final int pid;
  private boolean open = true;

  OpenTransaction(DataSource lockdb) throws SQLException {
    connection = lockdb.getConnection();
    connection.setAutoCommit(false);
    sql = JdbcClient.create(new SingleConnectionDataSource(connection, true));
    pid = sql.sql("SELECT pg_backend_pid()").query(Integer.class).single();
    // A statement of it that waits this long for a row lock fails, instead of hanging the test.
    sql.sql("SET LOCAL lock_timeout = '30s'").update();
  }

  /** Its statements. */
  JdbcClient sql() {
    return sql;
  }

  /** Its server process, for asking PostgreSQL who waits for it. */
  int pid() {
    return pid;
  }

  /** The transaction's {@code now()}: when it started, by PostgreSQL's clock. */
  Timestamp now() {
    return sql.sql("SELECT now()").query(Timestamp.class).single();
  }

  /** Runs the backend's acquire function inside this transaction; its outcome. */
  String acquire(String key, String session) {
    return sql.sql("SELECT outcome FROM lock_acquire(:key, :sid)")
        .param("key", key)
        .param("sid", UUID.fromString(session))
        .query(String.class)
        .single();
  }

  void commit() throws SQLException {
    connection.commit();
    open = false;
  }

  @Override
  public void close() throws SQLException {
    try {
      if (open) {
        connection.rollback();
      }
      connection.setAutoCommit(true);
    } finally {
      connection.close();
    }
  }
}
