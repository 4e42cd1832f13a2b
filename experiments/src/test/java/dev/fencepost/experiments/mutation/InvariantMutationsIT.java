package dev.fencepost.experiments.mutation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.Guards;
import dev.fencepost.experiments.harness.RunResult;
import dev.fencepost.experiments.harness.Worker;
import dev.fencepost.history.Checker;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.lock.FencingToken;
import dev.fencepost.payment.Actor;
import dev.fencepost.payment.IllegalTransitionException;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payoutjob.PayoutFailpoint.Point;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * NFR-07 with real processes (ADR 0109): for each invariant that had no process-level negative
 * control, a run in which its primary enforcement is deliberately broken, and the history checker's
 * counter that catches it. docs/evidence/nfr-07.md maps every INV-01..INV-08 to its mutation and
 * check, these and the existing ones; {@link Nfr07TableTest} keeps that table honest.
 */
@Tag("NFR-07")
class InvariantMutationsIT {

  static final long FUNDING = 10_000;
  static final long AMOUNT = 2_500;

  /**
   * INV-02, "retry on timeout": the rail takes the money but the answer is lost (the stub settles,
   * then hangs past the proxy's 1 s timeout), so the payout is ambiguous; a worker that treats the
   * timeout as a failure submits again with the same grant. With the proxy's uniqueness check off
   * (its high-water passes an equal token) the rail moves the money twice.
   */
  @Test
  @Tag("INV-02")
  void inv02ARetryOnTimeoutWithUniquenessOffIsCaughtAsADuplicateRailMovement() {
    try (ExperimentRun run =
        ExperimentRun.start(
            "nfr07-inv02-retry-on-timeout",
            "NFR-07 INV-02: a retry on timeout, uniqueness off",
            Guards.ALL_ON.withUniqueness(false))) {
      Payout p = run.payout("inv02", FUNDING, AMOUNT);
      run.railFaults(Map.of(p.clientReference(), "TIMEOUT_AFTER_SETTLE"));
      Worker w1 = run.worker("w1").start();
      w1.awaitExit(Duration.ofMinutes(3));
      Payout ambiguous = run.reload(p);
      assertThat(ambiguous.state()).isEqualTo(PayoutState.RAIL_AMBIGUOUS);

      run.event(null, "MUTATION", "retry on timeout: resubmit the ambiguous payout, same token");
      HttpResponse<String> retry = submit(run, ambiguous, ambiguous.tokenStamp());
      run.event(null, "RETRY_ANSWER", "proxy answered " + retry.statusCode());
      RunResult result = run.finish();

      assertThat(run.movements(p)).isEqualTo(2);
      assertThat(result.count("duplicate_rail_movement")).isEqualTo(1);
      assertThat(result.count("effect_without_grant")).isZero();
      assertThat(result.count("guard_accepted_lower_token")).isZero();
    }
  }

  /**
   * INV-04: the PostgreSQL backend's token sequence is rewound (what a restore without ADR 0003's
   * procedure does). The next grant on a key reissues a token below the one the key had; the
   * checker counts the regression, and paydb's fence refuses the reissued token.
   */
  @Test
  @Tag("INV-04")
  void inv04ARewoundTokenSequenceIsCaughtAsATokenRegressionAndRefusedByTheFence() {
    try (ExperimentRun run =
        ExperimentRun.start(
            "nfr07-inv04-rewound-sequence",
            "NFR-07 INV-04: the lock token sequence rewound",
            Guards.ALL_ON)) {
      Payout first = run.payout("inv04", FUNDING, AMOUNT);
      PostgresDatabase lockdb = run.stack().lockdb();
      // Forward is always allowed; it makes the rewound token lower than the fence, not equal to
      // it, even when this is the first grant of a fresh lockdb.
      sql(lockdb, "SELECT setval('lock_token_seq', (SELECT last_value FROM lock_token_seq) + 100)");
      Worker w1 = run.worker("w1").loop().start();
      run.awaitState(first, PayoutState.POSTED);
      long highest = sql(lockdb, "SELECT last_value FROM lock_token_seq");
      RunResult result;
      try {
        run.event(null, "MUTATION", "lock_token_seq rewound from " + highest + " to 1");
        sql(lockdb, "ALTER SEQUENCE lock_token_seq RESTART WITH 1");
        Payout second =
            run.fixtures().createPendingPayout(first.accountId(), AMOUNT, "EUR", "ben-second");
        run.awaitEffect(
            "w1",
            e ->
                second.id().toString().equals(e.payoutId())
                    && e.outcome() != null
                    && e.outcome().startsWith("FENCED"));
        result = run.finish();
      } finally {
        // Past every token issued before (ADR 0003's procedure), so later scenarios are unaffected.
        sql(lockdb, "SELECT setval('lock_token_seq', " + (highest + 1_000_000) + ")");
      }

      assertThat(result.count("token_regressions")).isPositive();
      assertThat(result.fencedEffects()).isNotEmpty();
      assertThat(result.count("guard_accepted_lower_token")).isZero();
      assertThat(result.count("duplicate_rail_movement")).isZero();
      assertThat(result.count("movement_for_ambiguous_payout")).isZero();
    }
  }

  /**
   * INV-06: the holder's lock row is deleted behind the backend's back (what a non-atomic acquire
   * amounts to), so a second worker is granted the key while the first still holds it. The checker
   * counts the overlap; the guards contain it (INV-01, INV-02 survive INV-06 being broken).
   */
  @Test
  @Tag("INV-06")
  void inv06ALockRowDeletedUnderItsHolderIsCaughtAsOverlappingGrants() {
    try (ExperimentRun run =
        ExperimentRun.start(
            "nfr07-inv06-two-holders",
            "NFR-07 INV-06: two live holders of one key",
            Guards.ALL_ON)) {
      Payout p = run.payout("inv06", FUNDING, AMOUNT);
      Worker w1 = run.worker("w1").pauseAt(Point.CLAIMED).start();
      w1.awaitParked(Duration.ofMinutes(3));
      run.event(w1, "MUTATION", "w1's lock row deleted while its session is alive");
      sql(
          run.stack().lockdb(),
          "DELETE FROM lock_entry WHERE lock_key = '"
              + Checker.DEFAULT_KEY_PREFIX
              + p.accountId().value()
              + "'");
      run.worker("w2").loop().start();
      run.awaitState(p, PayoutState.POSTED);
      run.resume(w1, false, "w1 goes on with the token it still believes it holds");
      w1.awaitExit(Duration.ofMinutes(2));
      RunResult result = run.finish();

      assertThat(result.count("overlapping_grants")).isPositive();
      assertThat(result.count("duplicate_rail_movement")).isZero();
      assertThat(result.count("multiple_postings")).isZero();
      assertThat(run.movements(p)).isEqualTo(1);
    }
  }

  /**
   * INV-07, "effect without a grant": a driver writes with a token no grant ever issued, through
   * paydb's fenced claim and the proxy's submission. Both guards accept it (it is above what they
   * have seen: a guard cannot tell a forged token from a new one), which is why INV-07 is
   * structural; the checker finds effects whose token was never acquired on the account's key.
   */
  @Test
  @Tag("INV-07")
  void inv07WritesWithATokenNoGrantIssuedAreCaughtAsEffectsWithoutAGrant() {
    try (ExperimentRun run =
        ExperimentRun.start(
            "nfr07-inv07-no-grant", "NFR-07 INV-07: writes without a grant", Guards.ALL_ON)) {
      Payout p = run.payout("inv07", FUNDING, AMOUNT);
      long forged = 4_000_000_000_000L + (UUID.randomUUID().getLeastSignificantBits() & 0xffff);
      run.event(null, "MUTATION", "claim and submit under token " + forged + ", never granted");
      run.payments().claim(p.id(), FencingToken.of(forged), Actor.worker("no-grant"));
      HttpResponse<String> submitted = submit(run, p, forged);
      assertThat(submitted.statusCode()).as(submitted.body()).isBetween(200, 299);
      RunResult result = run.finish();

      assertThat(result.count("effect_without_grant")).isGreaterThanOrEqualTo(2);
      assertThat(result.history().guardDecisions)
          .filteredOn(d -> d.token() != null && d.token() == forged)
          .extracting(d -> d.guard() + "/" + d.decision())
          .contains("PAYDB/ACCEPTED", "RAIL_PROXY/ACCEPTED");
    }
  }

  /**
   * INV-08: the state machine refuses to move a POSTED payout; a write that bypasses it (direct
   * SQL, with its audit row as a buggy code path would write it) moves it back to RAIL_SUBMITTED.
   */
  @Test
  @Tag("INV-08")
  void inv08ATransitionOutOfATerminalStateThatBypassesTheStateMachineIsCaught() {
    try (ExperimentRun run =
        ExperimentRun.start(
            "nfr07-inv08-out-of-terminal",
            "NFR-07 INV-08: a transition out of POSTED",
            Guards.ALL_ON)) {
      Payout p = run.payout("inv08", FUNDING, AMOUNT);
      Worker w1 = run.worker("w1").start();
      w1.awaitExit(Duration.ofMinutes(3));
      Payout posted = run.reload(p);
      assertThat(posted.state()).isEqualTo(PayoutState.POSTED);
      FencingToken token = FencingToken.of(posted.tokenStamp());
      // The enforcement in place: through the resource the same move is refused.
      assertThatThrownBy(() -> run.payments().markSubmitted(p.id(), token, Actor.worker("w1")))
          .isInstanceOf(IllegalTransitionException.class);

      run.event(null, "MUTATION", "POSTED -> RAIL_SUBMITTED by direct SQL");
      sql(
          run.paydb(),
          "UPDATE payout SET state = 'RAIL_SUBMITTED', finished_at = NULL WHERE id = '"
              + p.id()
              + "';"
              + "INSERT INTO audit_event (actor_role, actor_id, fencing_token, account_id,"
              + " payout_id, action, from_state, to_state, reason) VALUES ('WORKER', 'bypass', "
              + posted.tokenStamp()
              + ", '"
              + p.accountId().value()
              + "', '"
              + p.id()
              + "', 'FORCED', 'POSTED', 'RAIL_SUBMITTED', 'nfr-07 mutation')");
      RunResult result = run.finish();

      assertThat(result.count("transition_out_of_terminal")).isEqualTo(1);
      assertThat(result.count("duplicate_rail_movement")).isZero();
    }
  }

  /**
   * INV-03: after a payout is posted, paydb's deferred balancing trigger is switched off and a
   * one-legged group is written; the checker finds the unbalanced group and the balance that no
   * longer equals its entries.
   */
  @Test
  @Tag("INV-03")
  void inv03AnUnbalancedGroupPastTheDisabledDatabaseGuardIsCaught() {
    try (ExperimentRun run =
        ExperimentRun.start(
            "nfr07-inv03-unbalanced", "NFR-07 INV-03: an unbalanced group", Guards.ALL_ON)) {
      Payout p = run.payout("inv03", FUNDING, AMOUNT);
      run.worker("w1").start().awaitExit(Duration.ofMinutes(3));
      assertThat(run.reload(p).state()).isEqualTo(PayoutState.POSTED);
      UUID group = UUID.randomUUID();
      run.event(null, "MUTATION", "balancing trigger off; one-legged group " + group);
      sql(
          run.paydb(),
          "ALTER TABLE ledger_entry DISABLE TRIGGER ledger_entry_group_balances;"
              + "ALTER TABLE ledger_group DISABLE TRIGGER ledger_group_balances;"
              + "INSERT INTO ledger_group (id, kind, actor) VALUES ('"
              + group
              + "', 'FUNDING', 'mutation');"
              + "INSERT INTO ledger_entry (group_id, account_id, counterparty_account_id,"
              + " signed_amount) VALUES ('"
              + group
              + "', '"
              + p.accountId().value()
              + "', 'funding-source', 999);"
              + "ALTER TABLE ledger_entry ENABLE TRIGGER ledger_entry_group_balances;"
              + "ALTER TABLE ledger_group ENABLE TRIGGER ledger_group_balances;");
      RunResult result = run.finish();

      assertThat(result.count("unbalanced_group")).isEqualTo(1);
      assertThat(result.count("balance_not_ledger_sum")).isPositive();
    }
  }

  static HttpResponse<String> submit(ExperimentRun run, Payout p, long token) {
    String body =
        "{\"payoutId\":\""
            + p.id()
            + "\",\"accountId\":\""
            + p.accountId().value()
            + "\",\"fencingToken\":"
            + token
            + ",\"clientReference\":\""
            + p.clientReference()
            + "\",\"amountMinor\":"
            + p.amountMinor()
            + ",\"currency\":\""
            + p.currency()
            + "\",\"beneficiaryRef\":\""
            + p.beneficiaryRef()
            + "\"}";
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create(run.stack().proxy(run.guards()).baseUrl() + "/v1/submissions"))
            .header("Content-Type", "application/json")
            .timeout(Duration.ofSeconds(30))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    try {
      return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Runs statements on {@code db}; the first column of the first row of a query, else 0. */
  static long sql(PostgresDatabase db, String statements) {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.username(), db.password());
        Statement s = c.createStatement()) {
      if (s.execute(statements)) {
        try (ResultSet rs = s.getResultSet()) {
          return rs.next() ? rs.getLong(1) : 0;
        }
      }
      return 0;
    } catch (SQLException e) {
      throw new IllegalStateException(statements, e);
    }
  }
}
