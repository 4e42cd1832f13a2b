package dev.fencepost.experiments.gameday;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.experiments.harness.EvidenceAfterAllPassed;
import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.Guards;
import dev.fencepost.experiments.harness.LockBackend;
import dev.fencepost.experiments.harness.LockServers;
import dev.fencepost.experiments.harness.Settings;
import dev.fencepost.experiments.harness.Stack;
import dev.fencepost.experiments.harness.Worker;
import dev.fencepost.launcher.LocalIdentity;
import dev.fencepost.launcher.etcd.EtcdCluster;
import dev.fencepost.launcher.etcd.EtcdMember;
import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.launcher.prometheus.PrometheusServer.Sample;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payoutjob.PayoutFailpoint.Point;
import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.http.TestHttp;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Game days on the local platform (NFR-11): each test injects one failure into real processes
 * scraped by a real Prometheus loaded with the shipped rules, measures the time until the alert
 * fires through Prometheus's API, executes the alert's runbook (every query, statement and endpoint
 * it runs is checked to be in the runbook's text) and verifies recovery. The last test checks the
 * Grafana dashboards against the metric names this Prometheus really saw.
 *
 * <p>The test command runs the fast subset; the game days tagged {@code long} (an alert with a
 * {@code for:} of minutes, or a slow injection) run in the long tier. docs/evidence/game-days.md is
 * written from the run once every game day of the tier passed.
 */
@Tag("NFR-11")
@Tag("NFR-10")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GameDaysIT {

  static final long FUNDING = 10_000;
  static final long AMOUNT = 2_500;
  static final String OPERATOR = LocalIdentity.clientId(FencepostRole.OPERATOR);

  /** How long any alert may take to fire: its {@code for:} plus a generous margin. */
  static final Duration FIRE_BUDGET = Duration.ofMinutes(2);

  /** The paydb gauges re-read every second, so a game day does not wait 30 s for them. */
  static final String FAST_GAUGES = "--fencepost.payout.metrics.refresh=1s";

  static final List<GameDay> DAYS = Collections.synchronizedList(new ArrayList<>());
  static final int[] CHECKED = new int[2];

  /** The tests of this tier: the long ones are excluded from the test command. */
  static final int FAST = 2;

  static final int LONG = 9;

  @RegisterExtension
  static final EvidenceAfterAllPassed EVIDENCE =
      new EvidenceAfterAllPassed(
          Settings.longTier() ? FAST + LONG : FAST,
          () -> GameDayReport.write(DAYS, Settings.longTier(), CHECKED[0], CHECKED[1]));

  final Observatory obs = Observatory.shared();
  final Stack stack = Stack.shared();

  @Test
  @Order(1)
  void aGuardSwitchedOffPagesAndClearsWhenTheInstanceIsStopped() {
    GameDay day =
        new GameDay(
            "A rail proxy started with its high-water check off",
            "FencepostFencingDisabled",
            "page",
            Runbook.named("fencing-disabled"));
    Map<String, String> labels = Map.of("guard", "rail-proxy", "check", "high-water");
    assertThat(obs.active(day.alert(), labels)).as("quiet before the injection").isFalse();

    // The guarded instances are scraped too: recovery is every guard reporting on again.
    watchTheServices(LockBackend.POSTGRES);
    Guards off = Guards.ALL_ON.withHighWater(false);
    JavaProcess started = stack.proxy(off);
    // From the moment the instance answers: its JVM's start is not detection time.
    day.injected("a rail proxy instance started with `high-water-enabled=false` (FR-29's switch)");
    JavaProcess proxy = obs.watch("rail-proxy", started);
    obs.awaitFiring(day, labels, FIRE_BUDGET);

    String confirm =
        day.runbook().requireSays("min by (instance, guard, check) (fencepost_fencing_enabled)");
    List<Sample> enabled = obs.prometheus().query(confirm);
    assertThat(enabled)
        .anySatisfy(
            s -> {
              assertThat(s.labels()).containsEntry("check", "high-water");
              assertThat(s.value()).isZero();
            });
    day.step(confirm, "PromQL through Prometheus's API", describe(enabled));
    day.runbook().requireSays("The instance logged `fencing.disabled` (WARN) at start");
    List<String> logged = proxy.logLines("\"fencing.disabled\"");
    assertThat(logged).isNotEmpty();
    day.step(
        "The instance logged `fencing.disabled` (WARN) at start",
        "read the instance's log",
        logged.size() + " `fencing.disabled` event(s)");
    day.runbook().requireSays("scale it to 0 (`kubectl scale deploy <name> --replicas=0`)");
    stack.closeProxy(off);
    obs.forget(proxy);
    day.step(
        "scale it to 0 (`kubectl scale deploy <name> --replicas=0`)",
        "the instance stopped (SIGTERM) and removed from the scrape: the local equivalent",
        "stopped");

    Duration resolved = obs.awaitResolved(day.alert(), labels, FIRE_BUDGET);
    String verify = day.runbook().requireSays("min(fencepost_fencing_enabled) == 1");
    List<Sample> after = obs.prometheus().query(verify);
    assertThat(after).singleElement().satisfies(s -> assertThat(s.value()).isEqualTo(1.0));
    day.step(verify, "PromQL through Prometheus's API", describe(after));
    day.recovered("the alert resolved " + seconds(resolved) + " after the instance stopped");
    DAYS.add(day);
  }

  @Test
  @Order(2)
  @Tag("long")
  void aRevokeOfALiveHolderIsReportedAndItsLateWriteIsFencedOut() {
    GameDay revoked =
        new GameDay(
            "Break-glass revoke of a live holder",
            "FencepostLockRevoked",
            "ticket",
            Runbook.named("lock-revoked"));
    GameDay fenced =
        new GameDay(
            "The revoked holder's late write",
            "FencepostFencedOutWrite",
            "ticket",
            Runbook.named("fenced-out-write"));
    Map<String, String> proxyGuard = Map.of("guard", "rail-proxy");
    watchTheServices(LockBackend.POSTGRES);
    assertThat(obs.active(revoked.alert(), Map.of())).as("quiet before the injection").isFalse();
    assertThat(obs.active(fenced.alert(), proxyGuard)).as("quiet before the injection").isFalse();

    try (ExperimentRun run =
        ExperimentRun.start("gameday-revoke", "Game day: revoke of a live holder", Guards.ALL_ON)) {
      Payout payout = run.payout("gdrev", FUNDING, AMOUNT);
      String account = payout.accountId().value();
      String key = "payout:" + account;
      Worker w1 = run.worker("w1").pauseAt(Point.CLAIMED).pauseLandsAfterCheck().start();
      // The successor loops from the start: while w1's session lives, the key is held for it.
      Worker w2 = run.worker("w2").loop().served().start();
      w1.awaitParked(Duration.ofMinutes(3));
      obs.watch("payout-job", w2.process());

      String reason = "game day: holder parked mid-payout, lease kept alive";
      revoked.injected("an operator force-revokes the key of a worker parked mid-payout");
      HttpResponse<String> revoke =
          TestHttp.unchecked(
              () ->
                  operator(stack.lockServer(LockBackend.POSTGRES))
                      .post(
                          "/v1/admin/locks/" + key + "/revoke",
                          "{\"operator\":\"" + OPERATOR + "\",\"reason\":\"" + reason + "\"}"));
      assertThat(revoke.statusCode()).as(revoke.body()).isEqualTo(200);
      obs.awaitFiring(revoked, Map.of(), FIRE_BUDGET);
      // The injection is the break-glass procedure itself (UC-06), run as it is written.
      Runbook.named("break-glass-revoke")
          .requireSays("https://$HOST:8081/v1/admin/locks/payout:<accountId>/revoke");
      revoked.step(
          "break-glass-revoke.md: POST https://$HOST:8081/v1/admin/locks/payout:<accountId>/revoke",
          "as an OPERATOR, with a reason (the injection)",
          revoke.statusCode() + " " + revoke.body().replaceAll("\\s+", " "));

      String audit =
          revoked.runbook().requireSays("SELECT * FROM lock_audit ORDER BY id DESC LIMIT 10;");
      List<Map<String, Object>> rows = Sql.rows(stack.lockdb(), audit);
      assertThat(rows)
          .first()
          .satisfies(
              r -> {
                assertThat(r).containsEntry("operator", OPERATOR).containsEntry("reason", reason);
                assertThat(r.get("lock_key")).isEqualTo(key);
              });
      revoked.step(
          audit,
          "lockdb, as its runtime role",
          "latest row: operator " + OPERATOR + ", reason \"" + reason + "\", key of the account");

      run.awaitState(payout, PayoutState.POSTED);
      String holder = revoked.runbook().requireSays("/v1/locks/payout:<accountId>");
      HttpResponse<String> now =
          TestHttp.unchecked(
              () -> operator(stack.lockServer(LockBackend.POSTGRES)).get("/v1/locks/" + key));
      revoked.step(
          "curl ... " + holder,
          "GET /v1/locks/" + "payout:<accountId> with an OPERATOR token",
          now.statusCode() + ": " + (now.statusCode() == 404 ? "free" : "held (by the successor)"));
      assertThat(now.statusCode()).isIn(200, 404);

      fenced.injected("the revoked holder goes on with its old token");
      run.resume(w1, false, "the revoked holder goes on with its old token");
      w1.awaitExit(Duration.ofMinutes(2));
      obs.awaitFiring(fenced, proxyGuard, FIRE_BUDGET);

      String perGuard =
          fenced
              .runbook()
              .requireSays("sum by (guard) (increase(fencepost_fence_rejections_total[1h]))");
      List<Sample> byGuard = obs.prometheus().query(perGuard);
      assertThat(byGuard)
          .anySatisfy(
              s -> {
                assertThat(s.labels()).containsEntry("guard", "rail-proxy");
                assertThat(s.value()).isGreaterThan(0);
              });
      fenced.step(perGuard, "PromQL through Prometheus's API", describe(byGuard));
      String rejections =
          fenced
              .runbook()
              .requireSays(
                  "SELECT id, reason, payout_id, account_id, presented_token, high_water, created_at"
                      + " FROM submission_rejection WHERE reason = 'FENCED' ORDER BY id DESC LIMIT 20;");
      List<Map<String, Object>> refused = Sql.rowsReadOnlyAsOwner(stack.proxydb(), rejections);
      assertThat(refused).anySatisfy(r -> assertThat(r).containsEntry("account_id", account));
      fenced.step(
          rejections,
          "proxydb, read-only (the runtime role may only append to it)",
          "a FENCED row for the account (presented token below the high-water)");
      String fence =
          fenced
              .runbook()
              .requireSays("SELECT id, fence, updated_at FROM account WHERE id = '<accountId>';");
      List<Map<String, Object>> fences =
          Sql.rows(run.paydb(), fence.replace("<accountId>", account));
      assertThat(fences).singleElement();
      fenced.step(
          fence, "paydb, as its runtime role", "the account's fence is the successor's token");
      fenced.runbook().requireSays("lock-lost");
      fenced.step(
          "Check its log around the time for ... a lost lock (`lock-lost` with reason ... REVOKED",
          "read the stale holder's log",
          w1.process().logLines("lock.fenced_out").size()
              + " `lock.fenced_out` event(s) from w1, the revoked owner");

      String progress =
          fenced
              .runbook()
              .requireSays(
                  "SELECT state, count(*) FROM payout WHERE account_id = '<accountId>' GROUP BY state");
      List<Map<String, Object>> states =
          Sql.rows(run.paydb(), progress.replace("<accountId>", account));
      assertThat(states)
          .singleElement()
          .satisfies(r -> assertThat(r).containsEntry("state", "POSTED"));
      fenced.step(progress, "paydb, as its runtime role", "POSTED: 1");
      revoked.step(
          progress, "paydb, as its runtime role", "POSTED: 1 (the account's payouts move again)");
      assertThat(run.movements(payout)).isEqualTo(1);
      revoked.recovered(
          "the account's payout was POSTED by the successor under a higher token, one movement on the rail");
      fenced.recovered("nothing moved twice (one movement, one submission); the payout is POSTED");
      run.terminate(w2, "the payout is POSTED");
      obs.forget(w2.process());
      assertThat(run.finish().report().safe()).isTrue();
    }
    DAYS.add(revoked);
    DAYS.add(fenced);
  }

  /**
   * The game days whose alerts wait minutes ({@code for:} and budgets) start first and are checked
   * last, so that their waits overlap the other game days instead of adding to them.
   */
  static Background backlog;

  static Background unreadable;

  static Background ambiguous;

  /** The ambiguity SLA of the rail game day: A-10's 4 hours is not a game day's time. */
  static final String SHORT_SLA = "30s";

  /** A game day left running across tests: its run, its worker, and when it was injected. */
  record Background(GameDay day, ExperimentRun run, Worker worker, Payout payout) {}

  @Test
  @Order(5)
  @Tag("long")
  void startTheSlowGameDays() {
    watchTheServices(LockBackend.POSTGRES);
    assertThat(obs.active("FencepostPendingBacklogOld", Map.of())).isFalse();
    assertThat(obs.active("FencepostPaydbGaugesUnreadable", Map.of())).isFalse();

    GameDay stopped =
        new GameDay(
            "Payout workers running with their loop switched off",
            "FencepostPendingBacklogOld",
            "ticket",
            Runbook.named("pending-backlog"));
    ExperimentRun run =
        ExperimentRun.start("gameday-backlog", "Game day: workers not working", Guards.ALL_ON);
    Payout payout = run.payout("gdbkl", FUNDING, AMOUNT);
    // Up, healthy and scraped, publishing paydb's gauges, but launching no payout job: a
    // configuration mistake (or a stuck loop) that leaves the backlog to age.
    Worker idle =
        run.worker("w1")
            .loop()
            .served()
            .arg(FAST_GAUGES)
            .arg("--fencepost.payout.loop.enabled=false")
            .start();
    obs.watch("payout-job", idle.process());
    stopped.injected(
        "a payout created while the only worker runs with `fencepost.payout.loop.enabled=false`",
        payout.createdAt());
    backlog = new Background(stopped, run, idle, payout);

    GameDay blind =
        new GameDay(
            "The workers lose their read grant on reconciliation_run",
            "FencepostPaydbGaugesUnreadable",
            "ticket",
            Runbook.named("paydb-gauges-unreadable"));
    ExperimentRun run2 =
        ExperimentRun.start(
            "gameday-unreadable", "Game day: paydb gauges unreadable", Guards.ALL_ON);
    Worker reader = run2.worker("w1").loop().served().arg(FAST_GAUGES).start();
    obs.watch("payout-job", reader.process());
    Sql.asOwner(
        run2.paydb(),
        "REVOKE SELECT ON reconciliation_run FROM " + run2.paydb().runtime().username());
    blind.injected("`REVOKE SELECT ON reconciliation_run` from the workers' runtime role");
    unreadable = new Background(blind, run2, reader, null);

    GameDay silent =
        new GameDay(
            "The rail stops answering for a payout",
            "FencepostAmbiguousPastSla",
            "ticket",
            Runbook.named("ambiguous-past-sla"));
    ExperimentRun run3 =
        ExperimentRun.start(
            "gameday-ambiguous", "Game day: the rail stops answering", Guards.ALL_ON);
    Payout unanswered = run3.payout("gdamb", FUNDING, AMOUNT);
    run3.railFaults(Map.of(unanswered.clientReference(), "TIMEOUT_BEFORE_SETTLE"));
    silent.injected(
        "the rail stops answering the payout's submission (no answer, nothing moved); the"
            + " resolution SLA configured to "
            + SHORT_SLA
            + " instead of 4 h, on the workers and the reconciler alike");
    Worker submitter =
        run3.worker("w1")
            .loop()
            .served()
            .arg(FAST_GAUGES)
            .arg("--fencepost.payout.metrics.ambiguous-sla=" + SHORT_SLA)
            .start();
    obs.watch("payout-job", submitter.process());
    ambiguous = new Background(silent, run3, submitter, unanswered);
  }

  @Test
  @Order(10)
  @Tag("long")
  void aWorkerFrozenPastItsLeaseIsFencedOutAtPaydb() {
    GameDay day =
        new GameDay(
            "A worker frozen past its lease, thawed after its successor re-claimed",
            "FencepostFencedOutWrite",
            "ticket",
            Runbook.named("fenced-out-write"));
    Map<String, String> paydbGuard = Map.of("guard", "paydb");
    watchTheServices(LockBackend.POSTGRES);
    assertThat(obs.active(day.alert(), paydbGuard)).as("quiet before the injection").isFalse();
    try (ExperimentRun run =
        ExperimentRun.start(
            "gameday-frozen", "Game day: a worker frozen past its lease", Guards.ALL_ON)) {
      Payout payout = run.payout("gdfrz", FUNDING, AMOUNT);
      String account = payout.accountId().value();
      // w1 loops and serves its metrics, so that its refused write is scraped after it.
      Worker w1 =
          run.worker("w1").pauseAt(Point.CLAIMED).pauseLandsAfterCheck().loop().served().start();
      Worker w2 = run.worker("w2").pauseAt(Point.RECLAIMED).loop().gated().start();
      w1.awaitParked(Duration.ofMinutes(3));
      obs.watch("payout-job", w1.process());
      run.stop(w1, "parked at CLAIMED; frozen past its lease");
      w2.awaitReady(Duration.ofMinutes(3));
      run.openGate(w2, "successor may run");
      w2.awaitParked(Duration.ofMinutes(3));
      day.injected(
          "w1 (SIGSTOPped after its claim, past its 3 s lease) thaws after w2 re-claimed the payout");
      run.resume(w1, true, "thawed while w2 is parked after its re-claim");
      obs.awaitFiring(day, paydbGuard, FIRE_BUDGET);

      String perGuard =
          day.runbook()
              .requireSays("sum by (guard) (increase(fencepost_fence_rejections_total[1h]))");
      List<Sample> byGuard = obs.prometheus().query(perGuard);
      assertThat(byGuard)
          .anySatisfy(
              x -> {
                assertThat(x.labels()).containsEntry("guard", "paydb");
                assertThat(x.value()).isGreaterThan(0);
              });
      day.step(perGuard, "PromQL through Prometheus's API", describe(byGuard));
      String fence =
          day.runbook()
              .requireSays("SELECT id, fence, updated_at FROM account WHERE id = '<accountId>';");
      assertThat(Sql.rows(run.paydb(), fence.replace("<accountId>", account))).singleElement();
      day.step(fence, "paydb, as its runtime role", "the fence holds w2's token, above w1's");
      day.step(
          "Events `lock.fenced_out` (WARN) name the guard, `key`, `presentedToken`, `storedFence`",
          "read w1's log",
          w1.process().logLines("lock.fenced_out").size() + " `lock.fenced_out` event(s)");
      day.runbook().requireSays("Events `lock.fenced_out` (WARN) name the guard");

      run.resume(w2, false, "w2 goes on to submit");
      run.awaitState(payout, PayoutState.POSTED);
      String progress =
          day.runbook()
              .requireSays(
                  "SELECT state, count(*) FROM payout WHERE account_id = '<accountId>' GROUP BY state");
      assertThat(Sql.rows(run.paydb(), progress.replace("<accountId>", account)))
          .singleElement()
          .satisfies(r -> assertThat(r).containsEntry("state", "POSTED"));
      day.step(progress, "paydb, as its runtime role", "POSTED: 1");
      assertThat(run.movements(payout)).isEqualTo(1);
      day.recovered("the successor POSTED the payout; one movement on the rail");
      run.terminate(w1, "checked");
      obs.forget(w1.process());
      assertThat(run.finish().report().safe()).isTrue();
    }
    DAYS.add(day);
  }

  @Test
  @Order(11)
  @Tag("long")
  void aDuplicateMovementOnTheRailPagesOnceReconciliationFindsIt() {
    GameDay day =
        new GameDay(
            "A second movement for a posted payout, found by reconciliation",
            "FencepostDuplicateMovement",
            "page",
            Runbook.named("duplicate-movement"));
    Map<String, String> duplicate = Map.of("discrepancy", "DUPLICATE_SUBMISSION");
    watchTheServices(LockBackend.POSTGRES);
    assertThat(obs.active(day.alert(), duplicate)).as("quiet before the injection").isFalse();
    try (ExperimentRun run =
            ExperimentRun.start(
                "gameday-duplicate", "Game day: a duplicate movement", Guards.ALL_ON);
        Reconciler reconciler = Reconciler.start(run, List.of())) {
      java.time.Instant from =
          java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
      Payout payout = run.payout("gddup", FUNDING, AMOUNT);
      Worker w = run.worker("w1").loop().served().arg(FAST_GAUGES).start();
      obs.watch("payout-job", w.process());
      obs.watch("reconciliation-job", reconciler.process());
      run.awaitState(payout, PayoutState.POSTED);

      day.injected(
          "a second movement with the posted payout's client reference, sent to the rail past both guards");
      HttpResponse<String> rogue = rogueMovement(payout);
      assertThat(rogue.statusCode()).as(rogue.body()).isBetween(200, 201);
      String window =
          "windowFrom="
              + from
              + ",windowTo="
              + java.time.Instant.now()
                  .plusSeconds(1)
                  .truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
      day.runbook();
      HttpResponse<String> launched = reconciler.launch(window);
      assertThat(launched.statusCode()).as(launched.body()).isBetween(200, 202);
      obs.awaitFiring(day, duplicate, FIRE_BUDGET);

      String confirm =
          day.runbook()
              .requireSays(
                  "max by (discrepancy) (fencepost_reconciliation_last_run_findings{discrepancy=\"DUPLICATE_SUBMISSION\"})");
      List<Sample> found = obs.prometheus().query(confirm);
      assertThat(found).singleElement().satisfies(x -> assertThat(x.value()).isEqualTo(1.0));
      day.step(confirm, "PromQL through Prometheus's API", describe(found));
      String findings =
          day.runbook()
              .requireSays(
                  "SELECT r.id, r.window_from, r.window_to, r.finished_at, f.subject, f.payout_id,"
                      + " f.account_id, f.detail FROM reconciliation_run r JOIN reconciliation_finding"
                      + " f ON f.run_id = r.id WHERE f.discrepancy = 'DUPLICATE_SUBMISSION' ORDER BY"
                      + " r.finished_at DESC LIMIT 20;");
      List<Map<String, Object>> rows = Sql.rows(run.paydb(), findings);
      assertThat(rows)
          .singleElement()
          .satisfies(
              r ->
                  assertThat(String.valueOf(r.get("payout_id"))).isEqualTo(payout.id().toString()));
      day.step(
          findings,
          "paydb, as its runtime role",
          "one DUPLICATE_SUBMISSION finding, for the payout");
      String submissions =
          day.runbook()
              .requireSays(
                  "SELECT id, payout_id, fencing_token, outcome, rail_reference, created_at FROM"
                      + " rail_submission WHERE client_reference = '<clientReference>';");
      List<Map<String, Object>> recorded =
          Sql.rows(
              stack.proxydb(), submissions.replace("<clientReference>", payout.clientReference()));
      assertThat(recorded).hasSize(1);
      day.step(
          submissions,
          "proxydb, as its runtime role",
          "one submission recorded: the second movement did not pass the proxy");
      assertThat(run.movements(payout)).isEqualTo(2);
      day.step(
          "/rail/admin/movements?clientReference=<clientReference>",
          "the rail stub's movements, read as an operator",
          "2 movements for the reference");
      day.runbook().requireSays("/rail/admin/movements?clientReference=<clientReference>");
      day.recovered(
          "detected, not repaired (reconciliation never moves money): the payout stays POSTED, the"
              + " finding names it, and the runbook's next step is the rail's recall");
      run.terminate(w, "checked");
      obs.forget(w.process());
      obs.forget(reconciler.process());
    }
    DAYS.add(day);
  }

  @Test
  @Order(12)
  @Tag("long")
  void theLockBackendDownPagesTwiceAndTheBacklogDrainsWhenItReturns() throws Exception {
    GameDay down =
        new GameDay(
            "lockdb's PostgreSQL stopped under a working lock server",
            "FencepostLockBackendUnavailable",
            "page",
            Runbook.named("lock-backend-outage"));
    GameDay burn =
        new GameDay(
            "The same outage, as the workers' lock SLO sees it",
            "FencepostLockAcquireBudgetBurnFast",
            "page",
            Runbook.named("lock-acquire-slo-burn"));
    assertThat(obs.active(down.alert(), Map.of())).as("quiet before the injection").isFalse();
    assertThat(obs.active(burn.alert(), Map.of())).as("quiet before the injection").isFalse();
    try (ExperimentRun run =
            ExperimentRun.start(
                "gameday-outage", "Game day: the lock backend down", Guards.ALL_ON);
        EmbeddedPostgresServer lockPostgres = EmbeddedPostgresServer.startDedicated()) {
      PostgresDatabase lockdb = lockPostgres.createDatabase("gd_outage_lockdb");
      JavaProcess server =
          LockServers.launch(
              "lock-server-gdoutage",
              run.dir().resolve("logs").resolve("lock-server.log"),
              LockServers.on(lockdb));
      try {
        LockServers.awaitUp(server);
        obs.watch("lock-server", server);
        List<Payout> before = run.payouts("gdout", FUNDING, 3, AMOUNT);
        Worker w = run.worker("w1").loop().served().arg(FAST_GAUGES).lockServer(server).start();
        obs.watch("payout-job", w.process());
        for (Payout p : before) {
          run.awaitState(p, PayoutState.POSTED);
        }
        lockPostgres.stop();
        down.injected("lockdb's PostgreSQL server stopped; paydb, the proxy and the rail stay up");
        burn.injected(down.injection(), down.injectedAt());
        List<Payout> during = run.payouts("gdoutd", FUNDING, 3, AMOUNT);
        obs.awaitFiring(down, Map.of(), Duration.ofMinutes(4));
        obs.awaitFiring(burn, Map.of(), Duration.ofMinutes(4));

        String rate =
            down.runbook()
                .requireSays(
                    "sum by (instance, backend) (rate(fencepost_lock_operations_seconds_count{outcome=\"backend_unavailable\"}[5m]))");
        List<Sample> refused = obs.prometheus().query(rate);
        assertThat(refused).anySatisfy(x -> assertThat(x.value()).isGreaterThan(0));
        down.step(rate, "PromQL through Prometheus's API", describe(refused));
        down.runbook().requireSays("https://$HOST:9081/actuator/health");
        HttpResponse<String> health =
            TestHttp.unchecked(() -> management(server).get("/actuator/health"));
        down.step(
            "curl -s --cacert \"$CA\" https://$HOST:9081/actuator/health",
            "GET /actuator/health on the lock server's management port",
            health.statusCode() + " " + TestHttp.json(health).path("status").asString());
        down.runbook().requireSays("-c 'SELECT 1'");
        String probe;
        try {
          Sql.rows(lockdb, "SELECT 1");
          probe = "answered";
        } catch (IllegalStateException e) {
          probe = "refused: the database is down";
        }
        assertThat(probe).startsWith("refused");
        down.step("psql ... -c 'SELECT 1' (lockdb)", "a connection to lockdb", probe);
        for (String q :
            List.of(
                "fencepost:lock_acquire_errors:ratio_rate5m",
                "sum by (instance) (rate(fencepost_lock_client_acquire_seconds_count{outcome=\"unavailable\"}[5m]))")) {
          burn.runbook().requireSays(q);
          burn.step(q, "PromQL through Prometheus's API", describe(obs.prometheus().query(q)));
        }
        assertThat(during)
            .allSatisfy(p -> assertThat(run.reload(p).state()).isEqualTo(PayoutState.PENDING));
        burn.step(
            "Which workers: a single worker is its network, all of them is the lock service.",
            "paydb: the payouts created during the outage",
            "all PENDING: nothing claimed without a grant");

        down.runbook().requireSays("restore the database service");
        lockPostgres.start();
        down.step(
            "PostgreSQL: restore the database service",
            "the same server started again on its data directory",
            "started");
        for (Payout p : during) {
          run.awaitState(p, PayoutState.POSTED);
        }
        String acquired =
            down.runbook()
                .requireSays("fencepost_lock_client_acquire_seconds_count{outcome=\"acquired\"}");
        Awaitility.await("acquires succeed again, as Prometheus sees them")
            .atMost(Duration.ofMinutes(1))
            .until(
                () ->
                    obs.prometheus().query("sum(increase(" + acquired + "[30s]))").stream()
                        .anyMatch(x -> x.value() > 0));
        down.step(acquired + " rising again", "PromQL: its increase over 30 s", "above 0");
        down.recovered(
            "the backlog created during the outage was POSTED once the database was back, no"
                + " payout claimed without a grant; the alert clears when the 5 m window holds"
                + " no 503 (not awaited)");
        burn.recovered(
            "acquires succeed again; the short window (5 m) ends the alert (not awaited)");
        for (Payout p : before) {
          assertThat(run.movements(p)).isEqualTo(1);
        }
        for (Payout p : during) {
          assertThat(run.movements(p)).isEqualTo(1);
        }
        run.terminate(w, "the backlog drained");
        obs.forget(w.process());
        // The history's grants are in this game day's own lockdb, not the shared one the checker
        // reads: the UC-08 experiment checks the outage's history; this one counts movements.
        run.finish();
      } finally {
        obs.forget(server);
        server.close();
      }
    }
    DAYS.add(down);
    DAYS.add(burn);
  }

  @Test
  @Order(13)
  @Tag("long")
  void etcdElectingLeaderAfterLeaderIsReportedOnceTheHourlyAllowanceIsSpent() {
    GameDay day =
        new GameDay(
            "etcd loses its leader again and again",
            "FencepostEtcdLeaderElections",
            "ticket",
            Runbook.named("etcd-leader-elections"));
    assertThat(obs.active(day.alert(), Map.of())).as("quiet before the injection").isFalse();
    java.nio.file.Path logs = Settings.runsDir().resolve("gameday-elections");
    try (EtcdCluster etcd = EtcdCluster.builder().members(3).start()) {
      JavaProcess server =
          LockServers.launch(
              "lock-server-gdelections",
              logs.resolve("lock-server.log"),
              LockServers.onEtcd(etcd.endpoints()));
      try {
        LockServers.awaitUp(server);
        obs.watch("lock-server", server);
        // NFR-02's allowance is 3 elections an hour: the fourth spends it.
        for (int i = 1; i <= 4; i++) {
          EtcdMember leader = etcd.awaitLeader(Duration.ofSeconds(30));
          if (i == 4) {
            day.injected(
                "the etcd leader SIGKILLed for the fourth time within the hour (then restarted)");
          }
          leader.kill();
          etcd.awaitNewLeader(leader, Duration.ofSeconds(30));
          leader.restart();
          etcd.awaitFollowing(leader, Duration.ofSeconds(30));
          int seen = i;
          // Each election is seen by the lock server's term poll (5 s) before the next kill.
          Awaitility.await("the lock server counted election " + i)
              .atMost(Duration.ofMinutes(1))
              .until(() -> server.logLines("lock.etcd.leader_changed").size() >= seen);
        }
        obs.awaitFiring(day, Map.of(), FIRE_BUDGET);
        for (String q :
            List.of(
                "max(increase(fencepost_lock_etcd_leader_changes_total[1h]))",
                "max by (instance) (fencepost_lock_etcd_raft_term)")) {
          day.runbook().requireSays(q);
          day.step(q, "PromQL through Prometheus's API", describe(obs.prometheus().query(q)));
        }
        day.runbook().requireSays("`lock.etcd.leader_changed`");
        day.step(
            "The lock server logs `lock.etcd.leader_changed` (previousTerm, term) at each one.",
            "read the lock server's log",
            server.logLines("lock.etcd.leader_changed").size() + " event(s)");
        EtcdMember leader = etcd.awaitLeader(Duration.ofSeconds(30));
        HttpResponse<String> health =
            TestHttp.unchecked(() -> management(server).get("/actuator/health"));
        assertThat(health.statusCode()).isEqualTo(200);
        day.recovered(
            "the cluster has a leader ("
                + leader.name()
                + ") and the lock server is healthy; the ticket clears when the hour's window"
                + " passes (not awaited)");
      } finally {
        obs.forget(server);
        server.close();
      }
    }
    DAYS.add(day);
  }

  @Test
  @Order(80)
  @Tag("long")
  void theUnreadableGaugesTicketFiresAndClearsWhenTheGrantIsBack() {
    Background b = unreadable;
    assertThat(b).as("started by startTheSlowGameDays").isNotNull();
    GameDay day = b.day();
    obs.awaitFiring(day, Map.of(), Duration.ofMinutes(13));
    String confirm =
        day.runbook()
            .requireSays(
                "count by (instance) (fencepost_payout_ambiguous_past_sla != fencepost_payout_ambiguous_past_sla)");
    List<Sample> nan = obs.prometheus().query(confirm);
    assertThat(nan).isNotEmpty();
    day.step(confirm, "PromQL through Prometheus's API", nan.size() + " worker(s) publishing NaN");
    day.runbook().requireSays("`payout.paydb_gauges.failed`");
    List<String> failed = b.worker().process().logLines("payout.paydb_gauges.failed");
    assertThat(failed).anySatisfy(l -> assertThat(l).contains("reconciliation_run"));
    day.step(
        "Worker events: `payout.paydb_gauges.failed` (WARN, with the error)",
        "read the worker's log",
        failed.size() + " event(s), each naming the refused read of reconciliation_run");
    String grants = day.runbook().requireSays("paydb-007-runtime-grants");
    int applied =
        Sql.reapplyGrants(b.run().paydb(), "db/changelog/paydb/007-runtime-role.sql", grants);
    day.step(
        "A permission error ... re-apply the grants of changeset `paydb-007-runtime-grants` as the owner",
        "the changeset's GRANT statements, as paydb's owner",
        applied + " statements applied");
    Duration resolved = obs.awaitResolved(day.alert(), Map.of(), Duration.ofMinutes(2));
    day.step(
        "No NaN from any worker; `payout.paydb_gauges.failed` stops.",
        "the alert's state through Prometheus's API",
        "resolved " + seconds(resolved) + " after the grants");
    day.recovered(
        "the gauges read again and the ticket resolved " + seconds(resolved) + " after the grants");
    b.run().terminate(b.worker(), "checked");
    obs.forget(b.worker().process());
    b.run().close();
    DAYS.add(day);
  }

  @Test
  @Order(81)
  @Tag("long")
  void theBacklogTicketFiresAfterItsBudgetAndClearsWhenAWorkerRuns() {
    Background b = backlog;
    assertThat(b).as("started by startTheSlowGameDays").isNotNull();
    GameDay day = b.day();
    // The 15 minute budget and the alert's 5 minutes: no rule is shortened for a game day.
    obs.awaitFiring(day, Map.of(), Duration.ofMinutes(25));
    for (String q :
        List.of(
            "max(fencepost_payout_pending_oldest_age_seconds)",
            "max by (state) (fencepost_payouts)",
            "sum by (instance, outcome) (rate(fencepost_payout_job_outcomes_total[5m]))")) {
      day.runbook().requireSays(q);
      day.step(q, "PromQL through Prometheus's API", describe(obs.prometheus().query(q)));
    }
    day.runbook().requireSays("https://$HOST:9085/actuator/batchjobs/payoutJob");
    HttpResponse<String> executions =
        TestHttp.unchecked(
            () -> management(b.worker().process()).get("/actuator/batchjobs/payoutJob"));
    assertThat(executions.statusCode()).as(executions.body()).isEqualTo(200);
    day.step(
        "curl ... https://$HOST:9085/actuator/batchjobs/payoutJob",
        "GET the worker's recent executions with an OPERATOR token",
        executions.statusCode() + ": no execution launched (the loop is off)");
    day.runbook().requireSays("kubectl scale deploy payout-job --replicas=<n>");
    Worker working = b.run().worker("w2").loop().served().arg(FAST_GAUGES).start();
    obs.watch("payout-job", working.process());
    day.step(
        "scale the Deployment (`kubectl scale deploy payout-job --replicas=<n>`)",
        "one more worker started, with its loop on: the local equivalent",
        "started");
    b.run().awaitState(b.payout(), PayoutState.POSTED);
    Duration resolved = obs.awaitResolved(day.alert(), Map.of(), Duration.ofMinutes(2));
    day.recovered(
        "the payout was POSTED by the new worker and the ticket resolved "
            + seconds(resolved)
            + " after it started");
    b.run().terminate(working, "checked");
    b.run().terminate(b.worker(), "checked");
    obs.forget(working.process());
    obs.forget(b.worker().process());
    assertThat(b.run().finish().report().safe()).isTrue();
    b.run().close();
    DAYS.add(day);
  }

  @Test
  @Order(82)
  @Tag("long")
  void anAmbiguousPayoutPastItsSlaIsReportedAndAbandonedByAnOperator() {
    Background b = ambiguous;
    assertThat(b).as("started by startTheSlowGameDays").isNotNull();
    GameDay day = b.day();
    ExperimentRun run = b.run();
    Payout payout = b.payout();
    run.awaitState(payout, PayoutState.RAIL_AMBIGUOUS);
    obs.awaitFiring(day, Map.of(), Duration.ofMinutes(10));
    String confirm = day.runbook().requireSays("max(fencepost_payout_ambiguous_past_sla)");
    List<Sample> past = obs.prometheus().query(confirm);
    assertThat(past).singleElement().satisfies(x -> assertThat(x.value()).isEqualTo(1.0));
    day.step(confirm, "PromQL through Prometheus's API", describe(past));
    String which =
        day.runbook()
            .requireSays(
                "SELECT id, account_id, client_reference, submitted_at, updated_at FROM payout WHERE"
                    + " state = 'RAIL_AMBIGUOUS' ORDER BY coalesce(submitted_at, updated_at) LIMIT 50;");
    assertThat(Sql.rows(run.paydb(), which)).singleElement();
    day.step(which, "paydb, as its runtime role", "the one payout, RAIL_AMBIGUOUS");

    // The procedure the ticket calls on: UC-05, evidence first, then abandon.
    Runbook resolve = Runbook.named("resolve-ambiguous-payout");
    resolve.requireSays("/rail/admin/movements?clientReference=<clientReference>");
    assertThat(run.movements(payout)).isZero();
    day.step(
        "resolve-ambiguous-payout.md: the rail's record of the reference",
        "the rail stub's movements for it, read as an operator",
        "none: the rail did not move the money, and no evidence will come");
    try (Reconciler reconciler =
        Reconciler.start(run, List.of("--fencepost.reconciliation.resolution-sla=" + SHORT_SLA))) {
      resolve.requireSays("/actuator/payoutops/<payoutId>/abandon");
      String reason = "game day: the rail cannot confirm, finance ticket GD-1";
      HttpResponse<String> abandoned =
          TestHttp.unchecked(
              () ->
                  management(reconciler.process())
                      .post(
                          "/actuator/payoutops/" + payout.id() + "/abandon",
                          "{\"reason\":\"" + reason + "\"}"));
      assertThat(abandoned.statusCode()).as(abandoned.body()).isEqualTo(200);
      assertThat(TestHttp.json(abandoned).path("state").asString()).isEqualTo("ABANDONED");
      day.step(
          "resolve-ambiguous-payout.md: POST https://$HOST:9086/actuator/payoutops/<payoutId>/abandon",
          "as an OPERATOR, with a reason, on the reconciliation app's management port",
          abandoned.statusCode() + " ABANDONED");
    }
    String state =
        resolve.requireSays(
            "SELECT state, failure_reason, finished_at FROM payout WHERE id = '<payoutId>';");
    assertThat(Sql.rows(run.paydb(), state.replace("<payoutId>", payout.id().toString())))
        .singleElement()
        .satisfies(r -> assertThat(r).containsEntry("state", "ABANDONED"));
    day.step(state, "paydb, as its runtime role", "ABANDONED");
    String audit =
        resolve.requireSays(
            "SELECT * FROM audit_event WHERE payout_id = '<payoutId>' ORDER BY id DESC LIMIT 3;");
    List<Map<String, Object>> rows =
        Sql.rows(run.paydb(), audit.replace("<payoutId>", payout.id().toString()));
    assertThat(rows.toString()).contains(OPERATOR);
    day.step(audit, "paydb, as its runtime role", "the abandon, with the operator " + OPERATOR);
    Duration resolved = obs.awaitResolved(day.alert(), Map.of(), Duration.ofMinutes(2));
    day.recovered(
        "abandoned by the operator after the SLA (never re-sent); the ticket resolved "
            + seconds(resolved)
            + " after the abandon");
    run.terminate(b.worker(), "checked");
    obs.forget(b.worker().process());
    assertThat(run.finish().report().safe()).isTrue();
    run.close();
    DAYS.add(day);
  }

  @Test
  @Order(90)
  void everyDashboardQueryNamesOnlyMetricsTheApplicationsExport() {
    // The etcd backend's own meters are exported only by a lock server on etcd.
    JavaProcess onEtcd = obs.watch("lock-server", stack.lockServer(LockBackend.ETCD));
    watchTheServices(LockBackend.POSTGRES);
    // The last run's findings are published once a run has completed: a worker and one run.
    try (ExperimentRun run =
            ExperimentRun.start(
                "gameday-dashboards", "Game day: one reconciliation run", Guards.ALL_ON);
        Reconciler reconciler = Reconciler.start(run, List.of())) {
      run.payout("gddash", FUNDING, AMOUNT);
      Worker w = run.worker("w1").loop().served().arg(FAST_GAUGES).start();
      obs.watch("payout-job", w.process());
      obs.watch("reconciliation-job", reconciler.process());
      HttpResponse<String> launched = reconciler.launch("");
      assertThat(launched.statusCode()).as(launched.body()).isBetween(200, 202);
      Awaitility.await("a completed reconciliation run")
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () ->
                  !Sql.rows(
                          run.paydb(),
                          "SELECT id FROM reconciliation_run WHERE status = 'COMPLETED'")
                      .isEmpty());
      dashboardsRead(onEtcd);
      run.terminate(w, "checked");
      obs.forget(w.process());
      obs.forget(reconciler.process());
    }
  }

  void dashboardsRead(JavaProcess onEtcd) {
    List<DashboardQueries.Query> queries = DashboardQueries.all();
    Set<String> used = new TreeSet<>();
    queries.forEach(q -> used.addAll(DashboardQueries.metricNames(q.expr())));
    // Until the etcd server's first samples and a recording rule's evaluation over them are in.
    Set<String> seen = new TreeSet<>();
    try {
      Awaitility.await("every dashboard metric scraped or recorded")
          .atMost(Duration.ofMinutes(1))
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> {
                seen.clear();
                seen.addAll(obs.prometheus().metricNames());
                return seen.containsAll(used);
              });
    } catch (ConditionTimeoutException e) {
      // reported below, name by name
    }
    assertThat(queries).hasSizeGreaterThan(20);
    Map<String, Set<String>> missing = new TreeMap<>();
    for (DashboardQueries.Query q : queries) {
      Set<String> names = DashboardQueries.metricNames(q.expr());
      assertThat(names)
          .as("%s / %s reads a metric: %s", q.dashboard(), q.panel(), q.expr())
          .isNotEmpty();
      for (String name : names) {
        if (!seen.contains(name)) {
          missing
              .computeIfAbsent(name, n -> new TreeSet<>())
              .add(q.dashboard() + " / " + q.panel());
        }
      }
    }
    assertThat(missing)
        .as("names in dashboards that no application exported (%s seen)", seen.size())
        .isEmpty();
    CHECKED[0] = queries.size();
    CHECKED[1] = seen.size();
    obs.forget(onEtcd);
  }

  // ---------------------------------------------------------------- helpers

  void watchTheServices(LockBackend backend) {
    obs.watch("lock-server", stack.lockServer(backend));
    obs.watch("rail-proxy", stack.proxy(Guards.ALL_ON));
    obs.watch("rail-stub", stack.stub());
  }

  /** A movement sent to the rail with the rail proxy's own credential, past both guards. */
  HttpResponse<String> rogueMovement(Payout payout) {
    String body =
        "{\"clientReference\":\""
            + payout.clientReference()
            + "\",\"amountMinor\":"
            + payout.amountMinor()
            + ",\"currency\":\""
            + payout.currency()
            + "\",\"beneficiaryRef\":\""
            + payout.beneficiaryRef()
            + "\"}";
    TestHttp rail =
        new TestHttp(
            HttpClient.newHttpClient(),
            stack.stub().baseUrl(),
            Duration.ofSeconds(30),
            request -> LockServers.identity().tokens(FencepostRole.RAIL_PROXY).currentToken());
    return TestHttp.unchecked(() -> rail.post("/rail/payments", body));
  }

  /** An OPERATOR's calls to a process's management port. */
  static TestHttp management(JavaProcess process) {
    return new TestHttp(
        HttpClient.newHttpClient(),
        process.managementUrl(),
        Duration.ofSeconds(30),
        request -> LockServers.identity().tokens(FencepostRole.OPERATOR).currentToken());
  }

  static TestHttp operator(JavaProcess service) {
    return new TestHttp(
        HttpClient.newHttpClient(),
        service.baseUrl(),
        Duration.ofSeconds(30),
        request -> LockServers.identity().tokens(FencepostRole.OPERATOR).currentToken());
  }

  static String describe(List<Sample> samples) {
    if (samples.isEmpty()) {
      return "no series";
    }
    return samples.stream()
        .map(
            s ->
                s.labels().entrySet().stream()
                        .filter(e -> !e.getKey().equals("__name__"))
                        .filter(e -> !e.getKey().equals("instance"))
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .collect(Collectors.joining(",", "{", "}"))
                    + " "
                    + (s.value() == Math.rint(s.value())
                        ? String.valueOf((long) s.value())
                        : String.valueOf(s.value())))
        .collect(Collectors.joining("; "));
  }

  static String seconds(Duration d) {
    return String.format(java.util.Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }
}
