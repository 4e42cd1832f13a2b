package dev.fencepost.testsupport.postgres;

import dev.fencepost.launcher.process.Signals;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * A PostgreSQL server's WAL writer and background writer, stopped (SIGSTOP, by PID): the two
 * processes that write WAL nobody waits for. While they are stopped, only a commit's own flush
 * writes the WAL, so a crash then takes back every commit that did not wait for a flush and was not
 * covered by a later one. For tests that show which commits a crash can lose (ADRs 0221, 0222); the
 * server must be the test's own ({@link EmbeddedPostgresExtension#dedicatedServer()}).
 *
 * <p>Closing resumes them (SIGCONT) if they still run: a test that fails between the stop and its
 * crash leaves no frozen server behind. After a crash they are gone and closing does nothing.
 */
public final class StoppedWalWriters implements AutoCloseable {

  private final List<Long> pids;

  private StoppedWalWriters(List<Long> pids) {
    this.pids = pids;
  }

  /** Stops the WAL writer and the background writer of the server {@code superuser} reaches. */
  public static StoppedWalWriters stop(DataSource superuser) {
    List<Long> pids = new ArrayList<>();
    try (Connection c = superuser.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT pid FROM pg_stat_activity"
                    + " WHERE backend_type IN ('walwriter', 'background writer')")) {
      while (rs.next()) {
        pids.add(rs.getLong(1));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not list the server's writers", e);
    }
    if (pids.size() != 2) {
      throw new IllegalStateException("expected a WAL writer and a background writer: " + pids);
    }
    Signals.send("STOP", pids);
    return new StoppedWalWriters(List.copyOf(pids));
  }

  @Override
  public void close() {
    if (pids.stream().allMatch(pid -> ProcessHandle.of(pid).isPresent())) {
      Signals.send("CONT", pids);
    }
  }
}
