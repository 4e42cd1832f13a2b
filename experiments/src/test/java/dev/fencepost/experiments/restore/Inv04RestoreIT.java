package dev.fencepost.experiments.restore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.experiments.harness.EvidenceAfterAllPassed;
import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.Guards;
import dev.fencepost.experiments.harness.LockServers;
import dev.fencepost.experiments.harness.RunResult;
import dev.fencepost.experiments.harness.Stack;
import dev.fencepost.experiments.harness.Worker;
import dev.fencepost.history.GrantEpochs;
import dev.fencepost.history.Records;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * INV-04 across a restore of the lock backend (ADR 0003, ADR 0016), with real processes, on both
 * backends. Payouts run; the lock server is stopped and its backend backed up; other keys' traffic
 * and more payouts move the tokens on (the guards see them); the backend is restored. (a) Served at
 * once, the restored backend reissues tokens at or below what it had issued before: the guards
 * refuse every write (FENCED_OUT, {@code lock.fenced_out}), the payouts stay PENDING, and the
 * history checker, fed the grant history kept across the restore ({@link GrantEpochs}), counts the
 * reissue ({@code token_reissued_after_restore}, {@code token_regressions}). (b) The operator then
 * applies the documented procedure: every new token exceeds every old one and the same payouts
 * complete. One run per backend covers both, as an operator would live it: (a) is the mistake, (b)
 * the recovery. The etcd backend's run is {@link Inv04EtcdRestoreLongIT} (long tier: the CI tier's
 * budget; lock-server's own EtcdRestoreTest keeps the etcd restore path in CI).
 * docs/evidence/inv04-restore.md is written from the runs of both that passed in this JVM.
 */
@Tag("INV-04")
@Tag("long")
class Inv04RestoreIT {

  static final long FUNDING = 100_000;
  static final long AMOUNT = 1_000;

  /** Grants on another key between the backup and the restore: the width of the reissued range. */
  static final int OTHER_TRAFFIC = 150;

  /** Runs whose assertions passed, by scenario, for the evidence report. */
  static final Map<String, Outcome> RESULTS = new ConcurrentHashMap<>();

  @RegisterExtension
  static final EvidenceAfterAllPassed EVIDENCE =
      new EvidenceAfterAllPassed(
          EvidenceAfterAllPassed.testMethodsOf(Inv04RestoreIT.class),
          () -> RestoreEvidence.write(RESULTS));

  /** The checker's counters that see the reissue of (a); every other one must be 0. */
  static final List<String> DETECT_THE_REISSUE =
      List.of("token_regressions", "token_reissued_after_restore", "release_before_acquire");

  record Outcome(
      Class<?> test,
      String backend,
      String procedure,
      RunResult run,
      long highestBeforeRestore,
      List<Long> reissued,
      List<String> statesAfterHazard,
      long guardsHighest,
      long floor,
      List<Long> afterFloor,
      List<String> statesAfterProcedure) {}

  @Test
  void
      postgresRestoreReissuesTokensTheGuardsRefuseUntilTheTokenFloorPutsEveryNewTokenAboveEveryOld() {
    Outcome o =
        restore(
            Inv04RestoreIT.class,
            "inv04-restore-postgres",
            "INV-04: lockdb restored from a backup (PostgreSQL backend)",
            () -> new RestoreTarget.Postgres(Stack.shared().postgres()));
    assertHazardThenProcedure(o);
    assertThat(logOf(o, "procedure")).anyMatch(l -> l.contains("lock.token_floor_applied"));
    RESULTS.put(o.run().scenario(), o);
  }

  static void assertHazardThenProcedure(Outcome o) {
    RunResult run = o.run();
    String report = run.report().toMarkdown(run.scenario());
    // (a) the restored backend reissued tokens, and the guards refused every write made with them:
    // nothing got past a guard.
    assertThat(o.reissued()).isNotEmpty();
    List<Records.Effect> hazard = run.effectsOf("w3");
    assertThat(hazard)
        .isNotEmpty()
        .allSatisfy(e -> assertThat(e.outcome()).isEqualTo("FENCED_OUT"));
    assertThat(fencedOutEvents(run, "w3")).isEqualTo(hazard.size());
    assertThat(run.history().guardDecisions)
        .filteredOn(d -> d.decision().equals("ACCEPTED") && o.reissued().contains(d.token()))
        .isEmpty();
    assertThat(o.statesAfterHazard()).containsOnly(PayoutState.PENDING.name());
    // The history kept across the restore shows the reissue to the checker: every token w3 was
    // granted is at or below one issued before the restore, on some key, and no token granted
    // after the floor (w4's) is; per key, and in the clients' real-time order, too.
    assertThat(run.count("token_reissued_after_restore"))
        .as(report)
        .isEqualTo(o.reissued().stream().distinct().count());
    assertThat(run.count("token_regressions"))
        .as(report)
        .isGreaterThanOrEqualTo(o.reissued().size());
    assertThat(run.count("release_before_acquire")).as(report).isPositive();
    // (b) the floor was applied: every token after it is at or above it, and w4's writes passed.
    assertThat(o.afterFloor())
        .isNotEmpty()
        .allSatisfy(t -> assertThat(t).isGreaterThanOrEqualTo(o.floor()));
    assertThat(run.effectsOf("w4"))
        .isNotEmpty()
        .allSatisfy(e -> assertThat(e.outcome()).isEqualTo("OK"));
    assertThat(o.statesAfterProcedure()).containsOnly(PayoutState.POSTED.name());
    for (String counter : run.report().safety().keySet()) {
      if (!DETECT_THE_REISSUE.contains(counter)) {
        assertThat(run.count(counter)).as(counter + "\n" + report).isZero();
      }
    }
    assertThat(run.history().payouts)
        .isNotEmpty()
        .allSatisfy(p -> assertThat(p.state()).isEqualTo("POSTED"));
  }

  static Outcome restore(
      Class<?> test, String scenario, String title, Supplier<RestoreTarget> targets) {
    GrantEpochs grants = new GrantEpochs();
    List<String> laterReferences = new ArrayList<>();
    try (ExperimentRun run = ExperimentRun.start(scenario, title, Guards.ALL_ON);
        RestoreTarget target = targets.get()) {
      Payout a1 = run.payout("inv04a", FUNDING, AMOUNT);
      Payout b1 = run.payout("inv04b", FUNDING, AMOUNT);
      List<AccountId> accounts = List.of(a1.accountId(), b1.accountId());

      JavaProcess server = phase(run, target, "before-backup", null, "w1", up -> {});
      awaitPosted(run, a1, b1);
      server.close();

      run.event(null, "BACKUP", target.name() + " backed up with the lock server stopped");
      target.backup();

      List<Payout> second = new ArrayList<>();
      server =
          phase(
              run,
              target,
              "after-backup",
              null,
              "w2",
              up -> {
                long traffic =
                    LockTraffic.acquireAndRelease(
                        up.baseUrl(), "other-tenant:traffic", OTHER_TRAFFIC);
                run.event(
                    null,
                    "OTHER_TRAFFIC",
                    OTHER_TRAFFIC + " grants on another key, the last token " + traffic);
                second.addAll(more(run, accounts, "second", laterReferences));
              });
      awaitPosted(run, second.toArray(Payout[]::new));
      server.close();

      grants.add(target.history(), 0);
      long highestBeforeRestore =
          grants.grants().stream()
              .filter(g -> g.kind().equals("ACQUIRED"))
              .mapToLong(Records.Grant::token)
              .max()
              .orElseThrow();
      run.event(
          null, "RESTORE", target.name() + " restored from the backup; the lock server is stopped");
      target.restore();
      long restoredUpTo = target.lastHistoryId();

      // (a) served at once: the procedure is skipped.
      List<Payout> third = more(run, accounts, "third", laterReferences);
      server =
          phase(
              run,
              target,
              "restored-without-procedure",
              null,
              "w3",
              up ->
                  run.event(
                      null,
                      "RESTART",
                      "lock server serving the restored backend without the procedure"));
      List<String> statesAfterHazard = states(run, third);
      server.close();

      // (b) the documented procedure.
      long g = guardsHighest(run, accounts);
      long l = target.highestOwnToken();
      long floor = target.floor(g, l);
      run.event(
          null,
          "PROCEDURE",
          "restore procedure: floor "
              + floor
              + " from the guards' highest "
              + g
              + " and the backend's own "
              + l);
      server = phase(run, target, "procedure", floor, "w4", up -> {});
      awaitPosted(run, third.toArray(Payout[]::new));
      List<String> statesAfterProcedure = states(run, third);
      server.close();

      grants.add(target.history(), restoredUpTo);
      run.addRecords(grants.grants());
      run.addRecords(movements(run, laterReferences));
      RunResult result = run.finish();
      return new Outcome(
          test,
          target.name(),
          target.procedure(),
          result,
          highestBeforeRestore,
          acquiredBy(result, "w3"),
          statesAfterHazard,
          g,
          floor,
          acquiredBy(result, "w4"),
          statesAfterProcedure);
    }
  }

  static List<String> states(ExperimentRun run, List<Payout> payouts) {
    return payouts.stream().map(p -> run.reload(p).state().name()).toList();
  }

  /**
   * Launches this phase's lock server and boots a once-mode worker for it meanwhile (held at its
   * start gate: two JVM starts overlap instead of adding up), then lets the worker run to its end.
   */
  static JavaProcess phase(
      ExperimentRun run,
      RestoreTarget target,
      String phase,
      Long floor,
      String id,
      Consumer<JavaProcess> before) {
    JavaProcess server = target.launch(run, phase, floor);
    Worker w = run.worker(id).gated().lockServer(server).start();
    LockServers.awaitUp(server);
    before.accept(server);
    w.awaitReady(Duration.ofMinutes(3));
    run.openGate(w, "lock server " + phase + " is up");
    w.awaitExit(Duration.ofMinutes(3));
    return server;
  }

  static void awaitPosted(ExperimentRun run, Payout... payouts) {
    for (Payout p : payouts) {
      run.awaitState(p, PayoutState.POSTED);
    }
  }

  /** One more PENDING payout per account (the accounts whose fences the guards hold). */
  static List<Payout> more(
      ExperimentRun run, List<AccountId> accounts, String label, List<String> references) {
    List<Payout> out = new ArrayList<>();
    for (AccountId account : accounts) {
      Payout p = run.fixtures().createPendingPayout(account, AMOUNT, "EUR", "ben-" + label);
      references.add(p.clientReference());
      out.add(p);
    }
    return out;
  }

  /** The stub's movements for payouts made after the run started (the harness keeps its own). */
  static List<Object> movements(ExperimentRun run, List<String> references) {
    Set<String> wanted = Set.copyOf(references);
    try {
      return run.stack().railMovements().stream()
          .filter(r -> r instanceof Records.RailMovement m && wanted.contains(m.clientReference()))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * ADR 0003 step 1: G, the highest token any guard holds (paydb fences, proxydb high-waters) for
   * the accounts this lock service serves. In production every account's guard belongs to the one
   * lock service; here proxydb is shared with runs on other lock servers (whose floors put their
   * tokens past a million), so G is taken over this run's accounts: the same rule, scoped to the
   * service being restored.
   */
  static long guardsHighest(ExperimentRun run, List<AccountId> accounts) {
    String in = accounts.stream().map(a -> "'" + a.value() + "'").collect(Collectors.joining(","));
    return Math.max(
        max(run.paydb(), "SELECT coalesce(max(fence), 0) FROM account"),
        max(
            run.stack().proxydb(),
            "SELECT coalesce(max(high_water), 0) FROM account_high_water WHERE account_id IN ("
                + in
                + ")"));
  }

  static long max(PostgresDatabase db, String sql) {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.username(), db.password());
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  static List<Long> acquiredBy(RunResult run, String worker) {
    return run.history().clientOps.stream()
        .filter(
            op ->
                op.worker().equals(worker)
                    && op.op().equals("ACQUIRE")
                    && op.outcome().equals("OK"))
        .map(Records.ClientOp::token)
        .toList();
  }

  static long fencedOutEvents(RunResult run, String worker) {
    return lines(run.dir().resolve("logs").resolve(worker + ".log")).stream()
        .filter(l -> l.contains("lock.fenced_out"))
        .count();
  }

  static List<String> logOf(Outcome o, String phase) {
    return lines(o.run().dir().resolve("logs").resolve("lock-server-" + phase + ".log"));
  }

  static List<String> lines(java.nio.file.Path file) {
    try {
      return Files.readAllLines(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
