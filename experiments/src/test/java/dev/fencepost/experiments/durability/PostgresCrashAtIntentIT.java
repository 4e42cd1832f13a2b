package dev.fencepost.experiments.durability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.Guards;
import dev.fencepost.experiments.harness.RunResult;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL crashes (every process SIGKILLed) right after the rail proxy committed a payout's
 * intent and before it could record the rail's answer, while the rail is moving the money. The
 * proxy is frozen the moment its intent row is visible, so the crash always lands in that window;
 * then PostgreSQL recovers from its WAL and the proxy is thawed.
 *
 * <p>With durable commits the intent survives: the proxy's outcome write fails, the worker's payout
 * can only become RAIL_AMBIGUOUS (or, once the rail's answer is known, POSTED), and no attempt
 * after the crash reaches the rail again. Had the crash taken the intent with it (a server with
 * asynchronous commits), a recovering worker would find no record at the proxy and pay a second
 * time.
 */
@Tag("INV-02")
@Tag("FR-19")
class PostgresCrashAtIntentIT {

  static final long FUNDING = 10_000;
  static final long AMOUNT = 1_000;

  @Test
  void anIntentCommittedBeforeACrashSurvivesItAndTheMoneyMovesOnce() throws SQLException {
    RunResult result;
    try (ExperimentRun run =
        ExperimentRun.start(
            "pg-crash-at-intent",
            "PostgreSQL SIGKILLed between the proxy's intent and the rail's answer",
            Guards.ALL_ON)) {
      Payout payout = run.payout("crash", FUNDING, AMOUNT);
      // The rail settles after a delay longer than the proxy's rail timeout: money moves while
      // the proxy is still waiting for an answer it will never be able to record.
      run.railFaults(Map.of(payout.clientReference(), "DELAY"));
      JavaProcess proxy = run.stack().proxy(run.guards());
      PostgresDatabase proxydb = run.stack().proxydb();

      run.worker("w1").loop().start();
      long intentId =
          Awaitility.await("the proxy commits the payout's intent")
              .atMost(Duration.ofMinutes(3))
              .pollInterval(Duration.ofMillis(10))
              .until(() -> intent(proxydb, payout), Optional::isPresent)
              .orElseThrow();
      proxy.pause();
      run.event(null, "SIGSTOP", "proxy frozen with intent " + intentId + " committed, no outcome");
      boolean outcomeBeforeCrash = outcomeRecorded(proxydb, payout);
      run.event(null, "CRASH", "every PostgreSQL process SIGKILLed at the proxy's intent");
      run.stack().postgres().crash();
      run.stack().postgres().start();
      run.event(null, "RESTARTED", "PostgreSQL recovered from its WAL");
      proxy.resume();
      run.event(null, "SIGCONT", "proxy thawed");

      // The proxy is frozen within milliseconds of its intent becoming visible and waits a whole
      // rail timeout for the rail, so the crash lands before the outcome; should a loaded machine
      // delay the freeze past that, the outcome it recorded must have survived as well.
      run.event(
          null, "WINDOW", outcomeBeforeCrash ? "outcome recorded before the crash" : "intent only");
      assertThat(intent(proxydb, payout)).as("the intent survived the crash").contains(intentId);
      assertThat(outcomeRecorded(proxydb, payout) || !outcomeBeforeCrash)
          .as("an outcome recorded before the crash survived it")
          .isTrue();
      Payout after = run.awaitState(payout, PayoutState.RAIL_AMBIGUOUS, PayoutState.POSTED);
      Awaitility.await("the rail settles the delayed payment")
          .atMost(Duration.ofMinutes(1))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> run.movements(payout) >= 1);
      run.event(null, "SETTLED", "payout " + after.state() + ", rail moved the money");

      result = run.finish();

      assertThat(result.report().safe()).as(result.report().toMarkdown("crash")).isTrue();
      assertThat(run.movements(payout)).as("money moved once").isEqualTo(1);
      assertThat(run.submissions(payout.id())).as("one submission ever").isEqualTo(1);
      assertThat(run.reload(payout).state()).isIn(PayoutState.RAIL_AMBIGUOUS, PayoutState.POSTED);
    }
  }

  /** The id of the payout's intent row in proxydb, once there is one. */
  private static Optional<Long> intent(PostgresDatabase proxydb, Payout payout)
      throws SQLException {
    try (Connection c = connect(proxydb);
        PreparedStatement s =
            c.prepareStatement("SELECT id FROM rail_submission WHERE payout_id = ?")) {
      s.setString(1, payout.id().toString());
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? Optional.of(rs.getLong(1)) : Optional.empty();
      }
    }
  }

  private static boolean outcomeRecorded(PostgresDatabase proxydb, Payout payout)
      throws SQLException {
    try (Connection c = connect(proxydb);
        PreparedStatement s =
            c.prepareStatement(
                "SELECT outcome IS NOT NULL FROM rail_submission WHERE payout_id = ?")) {
      s.setString(1, payout.id().toString());
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  private static Connection connect(PostgresDatabase db) throws SQLException {
    return DriverManager.getConnection(db.jdbcUrl(), db.username(), db.password());
  }
}
