package dev.fencepost.launcher.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class EmbeddedPostgresServerTest {

  @Test
  void eachCreatedDatabaseIsARealPostgresDatabaseOfItsOwn() throws Exception {
    PostgresDatabase db = EmbeddedPostgresServer.shared().createDatabase("own");
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "select current_database(), current_setting('server_version_num')::int")) {
      rs.next();
      assertThat(rs.getString(1)).isEqualTo(db.name());
      assertThat(rs.getInt(2)).isGreaterThanOrEqualTo(160000);
    }
  }

  @Test
  void aDedicatedServerKeepsItsDataAcrossStopAndStart() throws Exception {
    try (EmbeddedPostgresServer server = EmbeddedPostgresServer.startDedicated()) {
      PostgresDatabase database = server.createDatabase("restart");
      try (Connection c = DriverManager.getConnection(database.jdbcUrl(), "postgres", "postgres");
          Statement s = c.createStatement()) {
        s.execute("create table t(v int); insert into t values (42)");
      }
      server.stop();
      assertThat(server.isRunning()).isFalse();
      server.start();
      try (Connection c = DriverManager.getConnection(database.jdbcUrl(), "postgres", "postgres");
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("select v from t")) {
        rs.next();
        assertThat(rs.getInt(1)).isEqualTo(42);
      }
    }
  }
}
