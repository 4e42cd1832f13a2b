package dev.fencepost.launcher.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.db.durability.DurableCommits;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A server running with asynchronous commits (as a benchmark's server, or a mistaken parameter
 * group, would) cannot make an application's commits asynchronous: every session of a pool with
 * {@link DurableCommits} applied commits synchronously; only the explicit benchmark choice leaves
 * the server's setting in force.
 */
class DurableCommitsOnARealServerTest {

  static final EmbeddedPostgresServer asynchronous = EmbeddedPostgresServer.startDedicated(false);

  @AfterAll
  static void stop() {
    asynchronous.close();
  }

  @Test
  void aPoolWithDurableCommitsCommitsSynchronouslyOnAnAsynchronousServer() throws Exception {
    assertThat(sessionSetting(new DurableCommits())).isEqualTo("on");
  }

  @Test
  void theBenchmarksChoiceLeavesTheServersAsynchronousCommits() throws Exception {
    DurableCommits benchmark = new DurableCommits();
    benchmark.setAllowAsynchronousCommit(true);
    assertThat(sessionSetting(benchmark)).isEqualTo("off");
  }

  private static String sessionSetting(DurableCommits durability) throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(asynchronous.jdbcUrl("postgres"));
    config.setUsername(EmbeddedPostgresServer.USER);
    config.setPassword(EmbeddedPostgresServer.PASSWORD);
    config.setMaximumPoolSize(1);
    durability.applyTo(config);
    try (HikariDataSource pool = new HikariDataSource(config);
        Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("select current_setting('synchronous_commit')")) {
      rs.next();
      return rs.getString(1);
    }
  }
}
