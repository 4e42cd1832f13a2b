package dev.fencepost.experiments.mutation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.Guards;
import dev.fencepost.experiments.harness.LockServers;
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
import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.grants.TestGrants;
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
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * NFR-07 with real processes (ADR 0109): for each invariant that had no process-level negative
 * control, a run in which its primary enforcement is deliberately broken, and the history checker's
 * counter that catches it. Each {@link Mutation} is one case: how the run breaks the invariant, and
 * what the checker must count. docs/evidence/nfr-07.md maps every INV-01..INV-08 to its mutation
 * and check, these and the existing ones; {@link Nfr07TableTest} keeps that table honest.
 */
@Tag("NFR-07")
@Tag("INV-02")
@Tag("INV-04")
@Tag("INV-06")
@Tag("INV-07")
@Tag("INV-08")
@Tag("INV-03")
class InvariantMutationsIT {

  static final long FUNDING = 10_000;
  static final long AMOUNT = 2_500;

  /** A counter the checker must report: at least {@code min}, and {@code max} when not null. */
  record Expect(String counter, long min, Long max) {
    static Expect caught(String counter) {
      return new Expect(counter, 1, null);
    }

    static Expect atLeast(String counter, long min) {
      return new Expect(counter, min, null);
    }

    static Expect exactly(String counter, long n) {
      return new Expect(counter, n, n);
    }

    static Expect held(String counter) {
      return exactly(counter, 0);
    }

    void check(RunResult result) {
      String report = result.report().toMarkdown(result.scenario());
      assertThat(result.count(counter)).as(counter + "\n" + report).isGreaterThanOrEqualTo(min);
      if (max != null) {
        assertThat(result.count(counter)).as(counter + "\n" + report).isLessThanOrEqualTo(max);
      }
    }
  }

  /** Breaks an invariant in a run with one funded payout, and ends the run. */
  @FunctionalInterface
  interface Breaker {
    RunResult breakAndFinish(ExperimentRun run, Payout payout);
  }

  enum Mutation {
    INV02_RETRY_ON_TIMEOUT(
        "nfr07-inv02-retry-on-timeout",
        "NFR-07 INV-02: a retry on timeout, uniqueness off",
        Guards.ALL_ON.withUniqueness(false),
        "a retry on timeout with uniqueness off is caught as a duplicate rail movement",
        InvariantMutationsIT::retryOnTimeout,
        Expect.exactly("duplicate_rail_movement", 1),
        Expect.held("effect_without_grant"),
        Expect.held("guard_accepted_lower_token")),
    INV03_UNBALANCED_GROUP(
        "nfr07-inv03-unbalanced",
        "NFR-07 INV-03: an unbalanced group",
        Guards.ALL_ON,
        "an unbalanced group past the disabled database guard is caught",
        InvariantMutationsIT::unbalancedGroup,
        Expect.exactly("unbalanced_group", 1),
        Expect.caught("balance_not_ledger_sum")),
    INV04_REWOUND_SEQUENCE(
        "nfr07-inv04-rewound-sequence",
        "NFR-07 INV-04: the lock token sequence rewound",
        Guards.ALL_ON,
        "a rewound token sequence is caught as a token regression and refused by the fence",
        InvariantMutationsIT::rewoundSequence,
        Expect.caught("token_regressions"),
        Expect.held("guard_accepted_lower_token"),
        Expect.held("duplicate_rail_movement"),
        Expect.held("movement_for_ambiguous_payout")),
    INV06_TWO_HOLDERS(
        "nfr07-inv06-two-holders",
        "NFR-07 INV-06: two live holders of one key",
        Guards.ALL_ON,
        "a lock row deleted under its holder is caught as overlapping grants",
        InvariantMutationsIT::lockRowDeleted,
        Expect.caught("overlapping_grants"),
        Expect.held("duplicate_rail_movement"),
        Expect.held("multiple_postings")),
    INV07_NO_GRANT(
        "nfr07-inv07-no-grant",
        "NFR-07 INV-07: writes without a grant",
        Guards.ALL_ON,
        "writes with a token no grant issued are caught as effects without a grant",
        InvariantMutationsIT::writesWithoutAGrant,
        Expect.atLeast("effect_without_grant", 2)),
    INV08_OUT_OF_TERMINAL(
        "nfr07-inv08-out-of-terminal",
        "NFR-07 INV-08: a transition out of POSTED",
        Guards.ALL_ON,
        "a transition out of a terminal state that bypasses the state machine is caught",
        InvariantMutationsIT::outOfTerminal,
        Expect.exactly("transition_out_of_terminal", 1),
        Expect.held("duplicate_rail_movement"));

    final String scenario;
    final String title;
    final Guards guards;
    private final String says;
    final Breaker breaker;
    final List<Expect> expected;

    Mutation(
        String scenario,
        String title,
        Guards guards,
        String says,
        Breaker breaker,
        Expect... expected) {
      this.scenario = scenario;
      this.title = title;
      this.guards = guards;
      this.says = says;
      this.breaker = breaker;
      this.expected = List.of(expected);
    }

    /** The account label of the run's payout, e.g. {@code inv02}. */
    String label() {
      return name().substring(0, 5).toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
      return scenario + ": " + says;
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Mutation.class)
  void eachMutationIsCaughtByItsCounter(Mutation mutation) {
    try (ExperimentRun run =
        ExperimentRun.start(mutation.scenario, mutation.title, mutation.guards)) {
      Payout p = run.payout(mutation.label(), FUNDING, AMOUNT);
      RunResult result = mutation.breaker.breakAndFinish(run, p);
      mutation.expected.forEach(e -> e.check(result));
    }
  }

  /**
   * INV-02, "retry on timeout": the rail takes the money but the answer is lost (the stub settles,
   * then hangs past the proxy's rail timeout), so the payout is ambiguous; a worker that treats the
   * timeout as a failure submits again with the same grant. With the proxy's uniqueness check off
   * (its high-water passes an equal token) the rail moves the money twice.
   */
  static RunResult retryOnTimeout(ExperimentRun run, Payout p) {
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
    return result;
  }

  /**
   * INV-04: the PostgreSQL backend's token sequence is rewound (what a restore without the
   * procedure of ADR 0003 does). The next grant on a key reissues a token below the one the key
   * had; the checker counts the regression, and paydb's fence refuses the reissued token.
   */
  static RunResult rewoundSequence(ExperimentRun run, Payout first) {
    PostgresDatabase lockdb = run.stack().lockdb();
    // Forward is always allowed; it makes the rewound token lower than the fence, not equal to
    // it, even when this is the first grant of a fresh lockdb.
    sql(lockdb, "SELECT setval('lock_token_seq', (SELECT last_value FROM lock_token_seq) + 100)");
    run.worker("w1").loop().start();
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
    assertThat(result.fencedEffects()).isNotEmpty();
    return result;
  }

  /**
   * INV-06: the holder's lock row is deleted behind the backend's back (what a non-atomic acquire
   * amounts to), so a second worker is granted the key while the first still holds it. The checker
   * counts the overlap; the guards contain it (INV-01, INV-02 survive INV-06 being broken).
   */
  static RunResult lockRowDeleted(ExperimentRun run, Payout p) {
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

    assertThat(run.movements(p)).isEqualTo(1);
    return result;
  }

  /**
   * INV-07, "effect without a grant": a driver writes with a token no grant ever issued, through
   * paydb's fenced claim and the proxy's submission. paydb accepts it (it is above what it has
   * seen: paydb cannot tell a forged token from a new one); the proxy would refuse it for want of a
   * signed grant (ADR 0137), so the driver signs one with the lock server's key, the mutation of a
   * stolen signing key. The checker finds effects whose token was never acquired on the account's
   * key.
   */
  static RunResult writesWithoutAGrant(ExperimentRun run, Payout p) {
    long forged = 4_000_000_000_000L + (UUID.randomUUID().getLeastSignificantBits() & 0xffff);
    run.event(null, "MUTATION", "claim and submit under token " + forged + ", never granted");
    run.payments().claim(p.id(), FencingToken.of(forged), Actor.worker("no-grant"));
    HttpResponse<String> submitted = submit(run, p, forged);
    assertThat(submitted.statusCode()).as(submitted.body()).isBetween(200, 299);
    RunResult result = run.finish();

    assertThat(result.history().guardDecisions)
        .filteredOn(d -> d.token() != null && d.token() == forged)
        .extracting(d -> d.guard() + "/" + d.decision())
        .contains("PAYDB/ACCEPTED", "RAIL_PROXY/ACCEPTED");
    return result;
  }

  /**
   * INV-08: the state machine refuses to move a POSTED payout; a write that bypasses it (direct
   * SQL, with its audit row as a buggy code path would write it) moves it back to RAIL_SUBMITTED.
   */
  static RunResult outOfTerminal(ExperimentRun run, Payout p) {
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
    return run.finish();
  }

  /**
   * INV-03: after a payout is posted, paydb's deferred balancing trigger is switched off and a
   * one-legged group is written; the checker finds the unbalanced group and the balance that no
   * longer equals its entries.
   */
  static RunResult unbalancedGroup(ExperimentRun run, Payout p) {
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
    return run.finish();
  }

  /**
   * A driver's submission, with a grant signed by the experiments' lock-server key: the mutations
   * break other enforcement than the grant check (ADR 0137), which would otherwise refuse them
   * first (a stale retry's grant has expired; a forged token has none).
   */
  static HttpResponse<String> submit(ExperimentRun run, Payout p, long token) {
    String grant =
        TestGrants.sign(
            LockServers.grantKeys().current(),
            p.accountId().lockKey().value(),
            token,
            Instant.now().plusSeconds(60));
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
            + "\",\"grant\":\""
            + grant
            + "\"}";
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create(run.stack().proxy(run.guards()).baseUrl() + "/v1/submissions"))
            .header("Content-Type", "application/json")
            // The driver calls as a payout worker: the proxy serves no one else (ADR 0145).
            .header(
                "Authorization",
                "Bearer "
                    + LockServers.identity().tokens(FencepostRole.PAYOUT_WORKER).currentToken())
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
