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

  /** A statement as the owner: a game day's injection, never a runbook step. */
  static void asOwner(PostgresDatabase db, String sql) {
    updateAsOwner(db, sql);
  }

  /**
   * A statement as the owner, returning its update count: a game day's injection, or a runbook's
   * correction that the runbook says is made as the owner.
   */
  static int updateAsOwner(PostgresDatabase db, String sql) {
    PostgresDatabase.Credentials as = db.owner();
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), as.username(), as.password());
        Statement s = c.createStatement()) {
      s.execute(sql.strip().replaceAll(";$", ""));
      return Math.max(0, s.getUpdateCount());
    } catch (SQLException e) {
      throw new IllegalStateException("could not run on " + db.name() + ": " + sql, e);
    }
  }

  /** One value (the first column of the first row) of a query as the owner, read-only. */
  static Object valueAsOwner(PostgresDatabase db, String sql) {
    List<Map<String, Object>> rows = rows(db, db.owner(), sql);
    return rows.isEmpty() ? null : rows.get(0).values().iterator().next();
  }

  /**
   * Re-applies, as the owner, the GRANT statements of one changeset of a shipped changelog file (on
   * the classpath), with its {@code ${runtime_role}} the database's runtime role: Liquibase reruns
   * a grants changeset only when it changed, so a revoked grant comes back this way.
   *
   * @return how many statements ran
   */
  static int reapplyGrants(PostgresDatabase db, String resource, String changesetId) {
    String text;
    try (java.io.InputStream in = Sql.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("no " + resource + " on the classpath");
      }
      text = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    int start = text.indexOf("--changeset fencepost:" + changesetId + " ");
    if (start < 0) {
      throw new IllegalStateException(resource + " has no changeset " + changesetId);
    }
    int end = text.indexOf("--changeset", start + 1);
    String body = text.substring(start, end < 0 ? text.length() : end);
    int applied = 0;
    for (String line : body.split("\n")) {
      if (line.startsWith("GRANT ")) {
        asOwner(db, line.replace("${runtime_role}", db.runtime().username()).replaceAll(";$", ""));
        applied++;
      }
    }
    return applied;
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
