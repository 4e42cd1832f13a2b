package dev.fencepost.experiments.chaos;

import dev.fencepost.launcher.postgres.PostgresDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * The run's paydb read directly (a fresh connection each time, so a PostgreSQL restart costs a
 * failed poll, not a broken pool): payouts per state, whether the backlog has settled, and the
 * longest stretch in which no payout changed state.
 */
final class PaydbProgress {

  private final PostgresDatabase paydb;

  PaydbProgress(PostgresDatabase paydb) {
    this.paydb = paydb;
  }

  Map<String, Long> states() {
    Map<String, Long> states = new TreeMap<>();
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT state, count(*) FROM payout GROUP BY state")) {
      while (rs.next()) {
        states.put(rs.getString(1), rs.getLong(2));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return states;
  }

  long count(String state) {
    return states().getOrDefault(state, 0L);
  }

  /**
   * Payouts not yet where they may rest: in flight, or PENDING on an account with no RAIL_AMBIGUOUS
   * payout. A RAIL_AMBIGUOUS payout holds back its account's later payouts until reconciliation
   * resolves it (docs/payout-job.md), so those PENDING ones are settled for this run.
   */
  long unsettled() {
    return single(
        "SELECT count(*) FROM payout p WHERE p.state IN ('CLAIMED', 'RAIL_SUBMITTED', 'RAIL_ACKED')"
            + " OR (p.state = 'PENDING' AND NOT EXISTS (SELECT 1 FROM payout a"
            + " WHERE a.account_id = p.account_id AND a.state = 'RAIL_AMBIGUOUS'))");
  }

  /** PENDING payouts held back by a RAIL_AMBIGUOUS payout of their account. */
  long heldBehindAmbiguous() {
    return single(
        "SELECT count(*) FROM payout p WHERE p.state = 'PENDING' AND EXISTS (SELECT 1 FROM payout a"
            + " WHERE a.account_id = p.account_id AND a.state = 'RAIL_AMBIGUOUS')");
  }

  /** False while {@link #unsettled()} is not 0, or while paydb cannot be read (mid-restart). */
  boolean settled() {
    try {
      return unsettled() == 0;
    } catch (IllegalStateException e) {
      return false;
    }
  }

  private long single(String query) {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The longest gap between consecutive state changes of any payout (audit transactions). */
  Duration longestStall() {
    Duration longest = Duration.ZERO;
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT occurred_at FROM audit_event WHERE to_state IS NOT NULL"
                    + " AND actor_role NOT IN ('FIXTURE', 'INTAKE') ORDER BY occurred_at")) {
      Instant previous = null;
      while (rs.next()) {
        Instant at = rs.getObject(1, java.time.OffsetDateTime.class).toInstant();
        if (previous != null && Duration.between(previous, at).compareTo(longest) > 0) {
          longest = Duration.between(previous, at);
        }
        previous = at;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return longest;
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(paydb.jdbcUrl(), paydb.username(), paydb.password());
  }
}
