package dev.fencepost.experiments.gameday;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.experiments.harness.EvidenceAfterAllPassed;
import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.Guards;
import dev.fencepost.experiments.harness.LockBackend;
import dev.fencepost.experiments.harness.Worker;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.launcher.prometheus.PrometheusServer.Sample;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payoutjob.PayoutFailpoint.Point;
import dev.fencepost.testsupport.http.TestHttp;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Game days of the fencing guards (NFR-11, UC-03, UC-06, FR-29): a guard switched off, a revoke of
 * a live holder and its late write, a worker frozen past its lease. Each injects one failure into
 * real processes scraped by the game days' Prometheus ({@link Observatory}), measures the time
 * until the alert fires through Prometheus's API, executes the alert's runbook (every query,
 * statement and endpoint checked to be in its text, {@link Runbook}) and verifies recovery. The
 * first runs in the test command; the others are tagged {@code long}. The report is
 * docs/evidence/game-days.md, written by {@link GameDayRegistry} once every game-day class of the
 * tier passed.
 */
@Tag("NFR-11")
@Tag("NFR-10")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GameDaysGuardsIT extends GameDays {

  static final List<GameDay> DAYS = GameDayRegistry.days(GameDaysGuardsIT.class);

  @RegisterExtension
  static final EvidenceAfterAllPassed EVIDENCE = GameDayRegistry.evidence(GameDaysGuardsIT.class);

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

    List<Sample> enabled =
        runbookQuery(day, "min by (instance, guard, check) (fencepost_fencing_enabled)");
    assertThat(enabled)
        .anySatisfy(
            s -> {
              assertThat(s.labels()).containsEntry("check", "high-water");
              assertThat(s.value()).isZero();
            });
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
    List<Sample> after = runbookQuery(day, "min(fencepost_fencing_enabled) == 1");
    assertThat(after).singleElement().satisfies(s -> assertThat(s.value()).isEqualTo(1.0));
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

  @Test
  @Order(3)
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

      List<Sample> byGuard =
          runbookQuery(day, "sum by (guard) (increase(fencepost_fence_rejections_total[1h]))");
      assertThat(byGuard)
          .anySatisfy(
              x -> {
                assertThat(x.labels()).containsEntry("guard", "paydb");
                assertThat(x.value()).isGreaterThan(0);
              });
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
      // What the session alert does not see (lock-sessions-lost.md): a pause past the TTL loses
      // the locks to the worker's own watchdog, as `expired`.
      Runbook.named("lock-sessions-lost")
          .requireSays("loses those locks as `expired` first, not `session_lost`");
      List<String> lost = w1.process().logLines("\"lock.lost\"");
      assertThat(lost)
          .isNotEmpty()
          .allSatisfy(l -> assertThat(l).contains("expired").doesNotContain("session_lost"));
      day.step(
          "lock-sessions-lost.md: a worker paused past its TTL loses those locks as `expired`"
              + " first, not `session_lost`",
          "read w1's log",
          lost.size() + " `lock.lost` event(s), reason expired");

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
}
