package dev.fencepost.launcher.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.launcher.LocalTls;
import dev.fencepost.launcher.process.Signals;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
      long postmaster = Long.parseLong(Files.readAllLines(pidFile).get(0).strip());
      // A postmaster frozen through the library's 5 s stop timeout, as a slow shutdown
      // checkpoint on a loaded machine holds it, thawed 2 s after that.
      Signals.send("STOP", postmaster);
      Thread thaw =
          new Thread(
              () -> {
                LockSupport.parkNanos(Duration.ofSeconds(7).toNanos());
                Signals.send("CONT", postmaster);
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

  /**
   * ADR 0203 and 0206: commits share a flush after waiting at most 100 µs, unless a benchmark asks
   * for one flush per commit.
   */
  @Test
  void commitsShareAWalFlushByDefaultAndABenchmarkMayTurnThatOff() throws Exception {
    assertThat(walSettings(EmbeddedPostgresServer.shared())).isEqualTo("100 5");
    try (EmbeddedPostgresServer server =
        EmbeddedPostgresServer.builder().commitDelay(Duration.ZERO).start()) {
      assertThat(walSettings(server)).isEqualTo("0 5");
    }
  }

  /** PostgreSQL takes whole microseconds from 0 to 100 ms; the builder refuses the rest. */
  @Test
  void aCommitDelayPostgresWouldRefuseIsRefusedBeforeAServerStarts() {
    for (Duration bad :
        new Duration[] {
          Duration.ofMillis(-1), Duration.ofMillis(101), Duration.ofNanos(1_500), null
        }) {
      assertThatThrownBy(() -> EmbeddedPostgresServer.builder().commitDelay(bad))
          .as("%s", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("commit_delay");
    }
  }

  /**
   * Group commit makes a commit wait for others, never return early: with the delay engaged (more
   * open transactions than commit_siblings) every commit that returned survives a crash.
   */
  @Test
  void withCommitsFlushedInGroupsACrashStillLosesNoCommitThatReturned() throws Exception {
    int writers = 8;
    int each = 50;
    try (EmbeddedPostgresServer server = EmbeddedPostgresServer.startDedicated()) {
      String url = server.jdbcUrl("postgres");
      try (Connection c = DriverManager.getConnection(url, "postgres", "postgres");
          Statement s = c.createStatement()) {
        s.execute("create table acknowledged (writer int, n int, primary key (writer, n))");
      }
      // Siblings: transactions with an id, open throughout, so every commit below is delayed.
      List<Connection> siblings = new ArrayList<>();
      for (int i = 0; i < EmbeddedPostgresServer.COMMIT_SIBLINGS; i++) {
        Connection sibling = DriverManager.getConnection(url, "postgres", "postgres");
        sibling.setAutoCommit(false);
        try (Statement s = sibling.createStatement()) {
          s.execute("select txid_current()");
        }
        siblings.add(sibling);
      }
      ExecutorService pool = Executors.newFixedThreadPool(writers);
      List<Future<Integer>> acknowledged = new ArrayList<>();
      try {
        for (int w = 0; w < writers; w++) {
          int writer = w;
          acknowledged.add(
              pool.submit(
                  () -> {
                    int returned = 0;
                    try (Connection c = DriverManager.getConnection(url, "postgres", "postgres");
                        Statement s = c.createStatement()) {
                      for (int n = 1; n <= each; n++) {
                        s.execute("insert into acknowledged values (" + writer + ", " + n + ")");
                        returned++;
                      }
                    }
                    return returned;
                  }));
        }
        int returned = 0;
        for (Future<Integer> writer : acknowledged) {
          returned += writer.get(2, TimeUnit.MINUTES);
        }
        assertThat(returned).isEqualTo(writers * each);
        server.crash();
      } finally {
        pool.shutdownNow();
        for (Connection sibling : siblings) {
          try {
            sibling.close();
          } catch (java.sql.SQLException gone) {
            // The server was crashed under it.
          }
        }
      }

      server.start();
      try (Connection c = DriverManager.getConnection(url, "postgres", "postgres");
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("select count(*) from acknowledged")) {
        rs.next();
        assertThat(rs.getInt(1)).isEqualTo(writers * each);
      }
    }
  }

  private static String walSettings(EmbeddedPostgresServer server) throws Exception {
    try (Connection c =
            DriverManager.getConnection(server.jdbcUrl("postgres"), "postgres", "postgres");
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "select (select setting from pg_settings where name = 'commit_delay') || ' ' ||"
                    + " (select setting from pg_settings where name = 'commit_siblings')")) {
      rs.next();
      return rs.getString(1);
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

  @Test
  void closingAServerDeletesItsDataAndTheFilesMadeForItAloneAndItCannotStartAgain()
      throws Exception {
    EmbeddedPostgresServer server = EmbeddedPostgresServer.builder().tlsOnly().start();
    Path data = server.dataDirectory();
    Path certificates = server.caFile().getParent();
    Path hba;
    try (Connection c = server.adminConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("show hba_file")) {
      rs.next();
      hba = Path.of(rs.getString(1));
    }
    assertThat(hba).isRegularFile().isNotEqualTo(data.resolve("pg_hba.conf"));

    server.close();

    assertThat(data).doesNotExist();
    assertThat(certificates).doesNotExist();
    assertThat(hba).doesNotExist();
    assertThatThrownBy(server::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    server.close();
  }

  @Test
  void closingAServerKeepsTheCertificatesOfTheRunThatLentThem(@TempDir Path dir) {
    LocalTls run = LocalTls.generate(dir.resolve("run-tls"));
    EmbeddedPostgresServer server = EmbeddedPostgresServer.builder().tls(run).start();
    Path data = server.dataDirectory();

    server.close();

    assertThat(data).doesNotExist();
    assertThat(run.caFile()).isRegularFile();
    assertThat(run.privateKeyFile()).isRegularFile();
  }
}
