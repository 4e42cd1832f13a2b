package dev.fencepost.experiments.gameday;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.experiments.harness.EvidenceAfterAllPassed;
import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.Guards;
import dev.fencepost.experiments.harness.LockBackend;
import dev.fencepost.experiments.harness.Worker;
import dev.fencepost.launcher.prometheus.PrometheusServer.Sample;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
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
 * Game days of the payout backlog (NFR-11, UC-05, UC-08 step 5): the workers running with their
 * loop off, the workers losing their read grant on paydb's gauges, the rail no longer answering a
 * payout. Their alerts wait minutes (a 15 minute budget, {@code for:} of 5 and 10 minutes, never
 * shortened for a game day), so all three start in the first test and are checked by the later
 * ones. Long tier. See {@link GameDaysGuardsIT} for what a game day does.
 */
@Tag("NFR-11")
@Tag("NFR-10")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GameDaysPayoutsIT extends GameDays {

  static final List<GameDay> DAYS = GameDayRegistry.days(GameDaysPayoutsIT.class);

  @RegisterExtension
  static final EvidenceAfterAllPassed EVIDENCE = GameDayRegistry.evidence(GameDaysPayoutsIT.class);

  /**
   * The game days whose alerts wait minutes ({@code for:} and budgets) all start in the first test
   * and are checked in the last ones, so that their waits overlap instead of adding up.
   */
  static Background backlog;

  static Background unreadable;

  static Background ambiguous;

  /** The ambiguity SLA of the rail game day: A-10's 4 hours is not a game day's time. */
  static final String SHORT_SLA = "30s";

  /** A game day left running across tests: its run, its worker, and when it was injected. */
  record Background(GameDay day, ExperimentRun run, Worker worker, Payout payout) {}

  @Test
  @Order(1)
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
      runbookQuery(day, q);
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
    List<Sample> past = runbookQuery(day, "max(fencepost_payout_ambiguous_past_sla)");
    assertThat(past).singleElement().satisfies(x -> assertThat(x.value()).isEqualTo(1.0));
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
}
