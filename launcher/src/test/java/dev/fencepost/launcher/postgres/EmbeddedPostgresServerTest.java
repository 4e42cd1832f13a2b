package dev.fencepost.launcher.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
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
  void stopReturnsOnlyOnceThePostmasterHasExitedSoThatAStartOnItsDataDirectoryWorks()
      throws Exception {
    try (EmbeddedPostgresServer server = EmbeddedPostgresServer.startDedicated()) {
      Path pidFile = server.dataDirectory().resolve("postmaster.pid");
      String postmaster = Files.readAllLines(pidFile).get(0).strip();
      // A postmaster frozen through the library's 5 s stop timeout, as a slow shutdown
      // checkpoint on a loaded machine holds it, thawed 2 s after that.
      kill("STOP", postmaster);
      Thread thaw =
          new Thread(
              () -> {
                LockSupport.parkNanos(Duration.ofSeconds(7).toNanos());
                kill("CONT", postmaster);
              });
      thaw.start();
      try {
        server.stop();
        assertThat(pidFile).doesNotExist();
      } finally {
        thaw.join();
      }
      server.start();
      assertThat(server.isRunning()).isTrue();
      try (Connection c =
              DriverManager.getConnection(server.jdbcUrl("postgres"), "postgres", "postgres");
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("select 1")) {
        assertThat(rs.next()).isTrue();
      }
    }
  }

  @Test
  void aCrashLosesNoCommitThatReturnedAndTheServerRecoversOnItsDataDirectory() throws Exception {
    try (EmbeddedPostgresServer server = EmbeddedPostgresServer.startDedicated()) {
      Path pidFile = server.dataDirectory().resolve("postmaster.pid");
      long postmaster = Long.parseLong(Files.readAllLines(pidFile).get(0).strip());
      try (Connection c =
              DriverManager.getConnection(server.jdbcUrl("postgres"), "postgres", "postgres");
          Statement s = c.createStatement()) {
        s.execute("create table acknowledged (n int primary key)");
        // Each insert commits on its own and returns: every one of them was acknowledged.
        for (int n = 1; n <= 200; n++) {
          s.execute("insert into acknowledged values (" + n + ")");
        }
        server.crash();
      }

      assertThat(ProcessHandle.of(postmaster).filter(ProcessHandle::isAlive)).isEmpty();
      assertThat(server.isRunning()).isFalse();
      server.start();
      try (Connection c =
              DriverManager.getConnection(server.jdbcUrl("postgres"), "postgres", "postgres");
          Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "select count(*), current_setting('synchronous_commit') from acknowledged")) {
        rs.next();
        assertThat(rs.getInt(1)).isEqualTo(200);
        assertThat(rs.getString(2)).isEqualTo("on");
      }
    }
  }

  @Test
  void onlyABenchmarksDedicatedServerRunsWithAsynchronousCommits() throws Exception {
    try (EmbeddedPostgresServer server = EmbeddedPostgresServer.startDedicated(false);
        Connection c =
            DriverManager.getConnection(server.jdbcUrl("postgres"), "postgres", "postgres");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("select current_setting('synchronous_commit')")) {
      rs.next();
      assertThat(rs.getString(1)).isEqualTo("off");
    }
  }

  /** Signals the test's own postmaster, by its PID. */
  private static void kill(String signal, String pid) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, pid).start();
      assertThat(kill.waitFor()).isZero();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
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
