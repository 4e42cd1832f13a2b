package dev.fencepost.experiments.gameday;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.experiments.harness.EvidenceAfterAllPassed;
import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.Guards;
import dev.fencepost.experiments.harness.LockBackend;
import dev.fencepost.experiments.harness.LockServers;
import dev.fencepost.experiments.harness.Settings;
import dev.fencepost.experiments.harness.Worker;
import dev.fencepost.experiments.restore.RestoreTarget;
import dev.fencepost.launcher.etcd.EtcdCluster;
import dev.fencepost.launcher.etcd.EtcdMember;
import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.launcher.prometheus.PrometheusServer.Alert;
import dev.fencepost.launcher.prometheus.PrometheusServer.Sample;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payoutjob.PayoutFailpoint.Point;
import dev.fencepost.testsupport.http.TestHttp;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Game days of the lock service (NFR-11, UC-08, NFR-01, NFR-02, INV-04): a worker's session dropped
 * by the server while it holds locks, the lock backend down (with the fast and the slow SLO burn),
 * etcd electing leader after leader, and the restore of lockdb with the token floor (a procedure,
 * no alert). Long tier. See {@link GameDaysGuardsIT} for what a game day does.
 */
@Tag("NFR-11")
@Tag("NFR-10")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GameDaysLockServiceIT extends GameDays {

  static final List<GameDay> DAYS = GameDayRegistry.days(GameDaysLockServiceIT.class);

  @RegisterExtension
  static final EvidenceAfterAllPassed EVIDENCE =
      GameDayRegistry.evidence(GameDaysLockServiceIT.class);

  /** Locks the worker of the session game day holds when its session is dropped. */
  static final int HELD = 8;

  @Test
  @Order(1)
  @Tag("long")
  void aWorkerWhoseSessionTheLockServerDroppedLosesEveryLockItHeld() {
    GameDay day =
        new GameDay(
            "The lock server drops a live worker's session while it holds " + HELD + " locks",
            "FencepostLockSessionsLost",
            "ticket",
            Runbook.named("lock-sessions-lost"));
    watchTheServices(LockBackend.POSTGRES);
    awaitQuiet(day.alert(), Map.of());
    try (ExperimentRun run =
        ExperimentRun.start(
            "gameday-sessions", "Game day: a worker's lock session dropped", Guards.ALL_ON)) {
      List<Payout> payouts = new ArrayList<>();
      for (int i = 0; i < HELD; i++) {
        payouts.add(run.payout("gdses" + i, FUNDING, AMOUNT));
      }
      // One payout thread per account, each parked after its claim with its account's lock held:
      // the worker is alive and heartbeating, so its own watchdog never expires these locks.
      String owner = "gdsessions";
      Worker w =
          run.worker(owner)
              .pauseAt(Point.CLAIMED)
              .loop()
              .served()
              .arg(FAST_GAUGES)
              .arg("--fencepost.payout.concurrency=" + HELD)
              .arg("--fencepost.experiment.park-count=" + HELD)
              .start();
      w.awaitParked(Duration.ofMinutes(3));
      obs.watch("payout-job", w.process());
      // A SIGSTOP past the TTL would not do: the worker's watchdog fires first when it thaws, and
      // those locks are lost as `expired`. Sessions are lost when the server ends them before the
      // client's own deadline: lockdb's clock, a failover or restore of lockdb, a closed session.
      day.injected(
          "the worker's live session ended early on the lock server (its `expires_at` put in the"
              + " past as lockdb's owner: the local equivalent of lockdb's clock stepping forward"
              + " or a failover to a lagging replica) while the worker held "
              + HELD
              + " account locks");
      int dropped =
          Sql.updateAsOwner(
              stack.lockdb(),
              "UPDATE lock_session SET expires_at = now() - interval '1 second' WHERE owner = '"
                  + owner
                  + "' AND expires_at > now()");
      assertThat(dropped).isEqualTo(1);
      obs.awaitFiring(day, Map.of(), FIRE_BUDGET);

      String lost =
          day.runbook()
              .requireSays(
                  "sum by (instance) (increase(fencepost_lock_client_lost_total{reason=\"session_lost\"}[15m]))");
      List<Sample> perWorker = obs.prometheus().query(lost);
      // Earlier game days' workers are still in the 15 m range, at 0: one worker lost them all.
      List<Sample> losing = perWorker.stream().filter(x -> x.value() > 0).toList();
      assertThat(losing)
          .singleElement()
          .satisfies(x -> assertThat(x.value()).isGreaterThanOrEqualTo(HELD));
      day.step(
          lost,
          "PromQL through Prometheus's API",
          describe(losing) + " (one worker; the " + (perWorker.size() - 1) + " others at 0)");
      for (String q :
          List.of(
              "sum by (instance, outcome) (rate(fencepost_lock_client_heartbeat_seconds_count[5m]))",
              "max by (instance) (fencepost_lock_client_heartbeat_seconds_max)")) {
        runbookQuery(day, q);
      }
      day.runbook().requireSays("`lock.session.lost`");
      List<String> sessionLost = w.process().logLines("\"lock.session.lost\"");
      List<String> locksLost =
          w.process().logLines("\"lock.lost\"").stream()
              .filter(l -> l.contains("session_lost"))
              .toList();
      assertThat(sessionLost).hasSize(1);
      assertThat(locksLost).hasSizeGreaterThanOrEqualTo(HELD);
      day.step(
          "Worker events: `lock.session.lost` ... and one `lock.lost` per lock with reason"
              + " `session_lost`",
          "read the worker's log",
          sessionLost.size()
              + " `lock.session.lost`, "
              + locksLost.size()
              + " `lock.lost` with reason session_lost");
      String sessions =
          day.runbook()
              .requireSays(
                  "SELECT id, owner, ttl_millis, expires_at FROM lock_session WHERE owner ="
                      + " '<owner>' ORDER BY expires_at DESC LIMIT 5;");
      List<Map<String, Object>> rows =
          Sql.rowsReadOnlyAsOwner(stack.lockdb(), sessions.replace("<owner>", owner));
      assertThat(rows).isNotEmpty();
      day.step(
          sessions,
          "lockdb, read-only",
          rows.size()
              + " session row(s) for the worker: the dropped one expired before its TTL, and the"
              + " one it opened after");
      day.runbook().requireSays("One worker only");
      day.step(
          "One worker only: its pauses ... or its network; sessions the server ended early",
          "the lost sessions are one worker's; the worker never paused",
          "the cause is the server side (this game day's injection)");

      run.resume(w, false, "the parked payout threads go on after their locks were lost");
      for (Payout p : payouts) {
        run.awaitState(p, PayoutState.POSTED);
      }
      day.runbook().requireSays("fencepost_lock_client_heartbeat_seconds_count");
      String heartbeats =
          "sum by (outcome) (increase(fencepost_lock_client_heartbeat_seconds_count[30s]))";
      Awaitility.await("heartbeats ok only, as Prometheus sees them")
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> {
                List<Sample> h = obs.prometheus().query(heartbeats);
                return h.stream()
                        .anyMatch(s -> "ok".equals(s.labels().get("outcome")) && s.value() > 0)
                    && h.stream()
                        .noneMatch(s -> !"ok".equals(s.labels().get("outcome")) && s.value() > 0);
              });
      day.step(
          heartbeats,
          "PromQL: the verification's heartbeats `ok` only",
          describe(obs.prometheus().query(heartbeats)));
      for (Payout p : payouts) {
        assertThat(run.movements(p)).isEqualTo(1);
      }
      day.recovered(
          "the worker opened a new session and POSTED all "
              + HELD
              + " payouts (one movement each, no write with a lost lock); heartbeats `ok` only;"
              + " the ticket clears when the 15 m window passes (not awaited)");
      run.terminate(w, "checked");
      obs.forget(w.process());
      assertThat(run.finish().report().safe()).isTrue();
    }
    DAYS.add(day);
  }

  @Test
  @Order(2)
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
    GameDay slow =
        new GameDay(
            "The same outage, as the slow SLO burn alert sees it",
            "FencepostLockAcquireBudgetBurnSlow",
            "ticket",
            Runbook.named("lock-acquire-slo-burn"));
    assertThat(obs.active(down.alert(), Map.of())).as("quiet before the injection").isFalse();
    assertThat(obs.active(burn.alert(), Map.of())).as("quiet before the injection").isFalse();
    assertThat(obs.active(slow.alert(), Map.of())).as("quiet before the injection").isFalse();
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
        slow.injected(down.injection(), down.injectedAt());
        List<Payout> during = run.payouts("gdoutd", FUNDING, 3, AMOUNT);
        obs.awaitFiring(down, Map.of(), Duration.ofMinutes(4));
        obs.awaitFiring(burn, Map.of(), Duration.ofMinutes(4));
        // The slow alert's windows (1 d and 2 h, 3 d and 6 h) see the same failures at once, but
        // it fires only after its `for: 1h`: a game day records when Prometheus first evaluated
        // its expression true (the alert's activeAt) and does not wait the hour.
        Alert pending = obs.awaitActive(slow.alert(), Map.of(), Duration.ofMinutes(1));
        slow.pendingNotAwaited(
            pending.activeAt(),
            "it fires after its `for: 1h`, which a game day does not wait (the shipped rule is not"
                + " shortened)");
        for (String q :
            List.of(
                "fencepost:lock_acquire_errors:ratio_rate1h",
                "fencepost:lock_acquire_errors:ratio_rate28d")) {
          runbookQuery(slow, q);
        }
        slow.step(
            "the alert's state",
            "Prometheus's alerts API",
            pending.state() + " since " + pending.activeAt());

        List<Sample> refused =
            runbookQuery(
                down,
                "sum by (instance, backend) (rate(fencepost_lock_operations_seconds_count{outcome=\"backend_unavailable\"}[5m]))");
        assertThat(refused).anySatisfy(x -> assertThat(x.value()).isGreaterThan(0));
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
          runbookQuery(burn, q);
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
        slow.recovered(
            "the same recovery; the slow alert's 2 h and 6 h windows end it after the outage"
                + " leaves them (not awaited), and the budget spent goes to the SLO review");
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
    DAYS.add(slow);
  }

  @Test
  @Order(3)
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
          runbookQuery(day, q);
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
  @Order(4)
  @Tag("long")
  void lockdbRestoredFromAnOlderBackupServesTokensAboveEveryGuardOnceTheFloorIsApplied() {
    GameDay day =
        GameDay.procedure(
            "lockdb restored from a backup older than the tokens the guards hold (INV-04)",
            Runbook.named("restore-lock-store"));
    try (ExperimentRun run =
            ExperimentRun.start(
                "gameday-restore",
                "Game day: lockdb restored with the token floor",
                Guards.ALL_ON);
        RestoreTarget.Postgres target = new RestoreTarget.Postgres(stack.postgres())) {
      Payout first = run.payout("gdrst", FUNDING, AMOUNT);
      String account = first.accountId().value();
      JavaProcess before = target.launch(run, "gd-before-backup", null);
      postOnce(run, before, "w1", first);
      before.close();
      target.backup();
      // After the backup the account's tokens move on: the guards hold a fence the backup has not.
      JavaProcess after = target.launch(run, "gd-after-backup", null);
      Payout second = run.fixtures().createPendingPayout(first.accountId(), AMOUNT, "EUR", "ben-1");
      postOnce(run, after, "w2", second);

      day.injected(
          "lockdb lost after the account's second payout and restored from the backup taken"
              + " before it: its token sequence is behind the fence paydb and the proxy hold");
      day.runbook().requireSays("kubectl scale deploy lock-server --replicas=0");
      after.close();
      day.step(
          "Stop every lock server (`kubectl scale deploy lock-server --replicas=0`)",
          "the lock server stopped (SIGTERM): the local equivalent",
          "stopped");
      target.restore();
      day.step(
          "Restore the store (the database or etcd owner's procedure)",
          "`DROP DATABASE lockdb; CREATE DATABASE lockdb TEMPLATE lockdb_backup` (a cold copy)",
          "restored");

      String fences = day.runbook().requireSays("SELECT max(fence) FROM account;");
      long paydbMax = number(Sql.rows(run.paydb(), fences));
      String highWaters =
          day.runbook().requireSays("SELECT max(high_water) FROM account_high_water;");
      long proxyMax = number(Sql.rows(stack.proxydb(), highWaters));
      long g = Math.max(paydbMax, proxyMax);
      day.step(fences, "paydb, as its runtime role", String.valueOf(paydbMax));
      day.step(
          highWaters,
          "proxydb, as its runtime role (every account of the shared proxy)",
          String.valueOf(proxyMax));
      String events = day.runbook().requireSays("SELECT max(token) FROM lock_event;");
      String sequence = day.runbook().requireSays("SELECT last_value FROM lock_token_seq;");
      long eventsMax = number(Sql.rowsReadOnlyAsOwner(target.lockdb(), events));
      long sequenceAt = number(Sql.rowsReadOnlyAsOwner(target.lockdb(), sequence));
      long l = Math.max(eventsMax, sequenceAt);
      assertThat(l).as("the restore rewound the tokens below the guards'").isLessThan(g);
      day.step(events, "the restored lockdb, read-only", String.valueOf(eventsMax));
      day.step(sequence, "the restored lockdb, read-only", String.valueOf(sequenceAt));

      day.runbook().requireSays("--fencepost.lock.postgres.token-floor=<GREATEST(G, L) + 1000000>");
      long floor = Math.max(g, l) + 1_000_000;
      JavaProcess floored = target.launch(run, "gd-floor", floor);
      LockServers.awaitUp(floored);
      List<String> applied = floored.logLines("lock.token_floor_applied");
      assertThat(applied).isNotEmpty();
      day.step(
          "--fencepost.lock.postgres.token-floor=<GREATEST(G, L) + 1000000>",
          "the lock server started with `--fencepost.lock.postgres.token-floor=" + floor + "`",
          "`lock.token_floor_applied` logged before serving");
      try {
        Payout third =
            run.fixtures().createPendingPayout(first.accountId(), AMOUNT, "EUR", "ben-2");
        Worker w3 = run.worker("w3").pauseAt(Point.CLAIMED).lockServer(floored).start();
        w3.awaitParked(Duration.ofMinutes(3));
        day.runbook().requireSays("https://$HOST:8081/v1/locks/payout:<a busy accountId>");
        HttpResponse<String> held =
            TestHttp.unchecked(() -> operator(floored).get("/v1/locks/payout:" + account));
        assertThat(held.statusCode()).as(held.body()).isEqualTo(200);
        long token = TestHttp.json(held).path("token").asLong();
        assertThat(token).isGreaterThan(g).isGreaterThanOrEqualTo(floor);
        day.step(
            "curl ... https://$HOST:8081/v1/locks/payout:<a busy accountId> | jq .token",
            "GET the lock of the account, held by a worker after its claim, with an OPERATOR token",
            "token " + token + ", above G = " + g);
        run.resume(w3, false, "the token was read");
        run.awaitState(third, PayoutState.POSTED);
        w3.awaitExit(Duration.ofMinutes(2));
        day.runbook().requireSays("no new `lock.fenced_out`");
        long fencedOut =
            w3.process().logLines("lock.fenced_out").size()
                + floored.logLines("lock.fenced_out").size();
        assertThat(fencedOut).isZero();
        day.step(
            "no new `lock.fenced_out` with `presentedToken` below the stored value, and payouts"
                + " flowing",
            "the worker's and the lock server's logs; the account's third payout in paydb",
            "no `lock.fenced_out`; POSTED");
        for (Payout p : List.of(first, second, third)) {
          assertThat(run.movements(p)).isEqualTo(1);
        }
        day.recovered(
            "the first grant after the restore carried token "
                + token
                + ", above every token the guards had seen ("
                + g
                + "), and the account's next payout was POSTED with one movement; nothing fenced"
                + " out");
      } finally {
        floored.close();
      }
      // The grants are in this game day's own lockdb; the INV-04 experiment checks the history.
      run.finish();
    }
    DAYS.add(day);
  }

  /** Starts a once-mode worker on {@code server} and waits for it to post {@code payout}. */
  static void postOnce(ExperimentRun run, JavaProcess server, String id, Payout payout) {
    Worker w = run.worker(id).gated().lockServer(server).start();
    LockServers.awaitUp(server);
    w.awaitReady(Duration.ofMinutes(3));
    run.openGate(w, "lock server up");
    run.awaitState(payout, PayoutState.POSTED);
    w.awaitExit(Duration.ofMinutes(3));
  }

  static long number(List<Map<String, Object>> rows) {
    assertThat(rows).singleElement();
    Object v = rows.get(0).values().iterator().next();
    return v == null ? 0 : ((Number) v).longValue();
  }
}
