package dev.fencepost.experiments.gameday;

import dev.fencepost.launcher.postgres.PostgresDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A runbook's read-only SQL, run as the database's runtime role (never the owner). */
final class Sql {

  private Sql() {}

  static List<Map<String, Object>> rows(PostgresDatabase db, String sql) {
    return rows(db, db.runtime(), sql);
  }

  /**
   * As the owner in a read-only session: for the evidence tables the runtime role may only append
   * to (proxydb's {@code submission_rejection}), which a deployment reads through a read-only role.
   */
  static List<Map<String, Object>> rowsReadOnlyAsOwner(PostgresDatabase db, String sql) {
    return rows(db, db.owner(), sql);
  }

  private static List<Map<String, Object>> rows(
      PostgresDatabase db, PostgresDatabase.Credentials as, String sql) {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), as.username(), as.password())) {
      c.setReadOnly(true);
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery(sql.strip().replaceAll(";$", ""))) {
        ResultSetMetaData meta = rs.getMetaData();
        List<Map<String, Object>> rows = new ArrayList<>();
        while (rs.next()) {
          Map<String, Object> row = new LinkedHashMap<>();
          for (int i = 1; i <= meta.getColumnCount(); i++) {
            row.put(meta.getColumnLabel(i), rs.getObject(i));
          }
          rows.add(row);
        }
        return rows;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("runbook SQL failed on " + db.name() + ": " + sql, e);
    }
  }
}
