package dev.fencepost.experiments.gameday;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.experiments.harness.EvidenceAfterAllPassed;
import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.Guards;
import dev.fencepost.experiments.harness.LockBackend;
import dev.fencepost.experiments.harness.LockServers;
import dev.fencepost.experiments.harness.Worker;
import dev.fencepost.launcher.prometheus.PrometheusServer.Sample;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.http.TestHttp;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

/**
 * Game days of reconciliation (NFR-11, UC-07, FR-26, INV-03, ADR 0140, ADR 0178): a duplicate
 * movement, a ledger imbalance, a submission under a real payout's id with other content, a rail
 * movement naming no payout (with the finding's lifecycle), and a reconciliation that cannot run.
 * The reconciliation alerts read what the payout workers publish from paydb, so each game day
 * scrapes a worker of its own run. The stale run's alert is a max over every worker scraped, and a
 * worker whose paydb never saw a completed run reports +Inf: it runs last here, after every other
 * game day's worker is forgotten, and measures from the moment the last success turned 2 h old.
 * Long tier. See {@link GameDaysGuardsIT} for what a game day does.
 */
@Tag("NFR-11")
@Tag("NFR-10")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GameDaysReconciliationIT extends GameDays {

  static final List<GameDay> DAYS = GameDayRegistry.days(GameDaysReconciliationIT.class);

  @RegisterExtension
  static final EvidenceAfterAllPassed EVIDENCE =
      GameDayRegistry.evidence(GameDaysReconciliationIT.class);

  @Test
  @Order(1)
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

      List<Sample> found =
          runbookQuery(
              day,
              "max by (discrepancy) (fencepost_reconciliation_last_run_findings{discrepancy=\"DUPLICATE_SUBMISSION\"})");
      assertThat(found).singleElement().satisfies(x -> assertThat(x.value()).isEqualTo(1.0));
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
  @Order(2)
  @Tag("long")
  void aBalanceWrittenOutsideTheLedgerPagesOnceReconciliationAuditsIt() {
    GameDay day =
        new GameDay(
            "An account's balance written outside the ledger, found by reconciliation",
            "FencepostLedgerImbalance",
            "page",
            Runbook.named("ledger-imbalance"));
    Map<String, String> imbalance = Map.of("discrepancy", "LEDGER_IMBALANCE");
    watchTheServices(LockBackend.POSTGRES);
    awaitQuiet(day.alert(), imbalance);
    try (ExperimentRun run =
            ExperimentRun.start("gameday-ledger", "Game day: a ledger imbalance", Guards.ALL_ON);
        Reconciler reconciler = Reconciler.start(run, List.of())) {
      Instant from = Instant.now().truncatedTo(ChronoUnit.SECONDS);
      Payout payout = run.payout("gdled", FUNDING, AMOUNT);
      String account = payout.accountId().value();
      Worker w = servedWorker(run, "w1").start();
      obs.watch("payout-job", w.process());
      obs.watch("reconciliation-job", reconciler.process());
      run.awaitState(payout, PayoutState.POSTED);

      day.injected(
          "`UPDATE account SET balance_minor = balance_minor + 100` on one account, as paydb's owner"
              + " (a manual session or a bad migration): its balance no longer equals its ledger");
      Sql.asOwner(
          run.paydb(),
          "UPDATE account SET balance_minor = balance_minor + 100 WHERE id = '" + account + "'");
      Instant injected = Instant.now().plusSeconds(1).truncatedTo(ChronoUnit.SECONDS);
      assertThat(reconcile(run, reconciler, from, injected)).isEqualTo("COMPLETED");
      obs.awaitFiring(day, imbalance, FIRE_BUDGET);

      String confirm =
          "max by (discrepancy) (fencepost_reconciliation_last_run_findings{discrepancy=\"LEDGER_IMBALANCE\"})";
      List<Sample> found = runbookQuery(day, confirm);
      assertThat(found).singleElement().satisfies(x -> assertThat(x.value()).isEqualTo(1.0));
      String assertions =
          day.runbook()
              .requireSays(
                  "sum by (check) (increase(fencepost_ledger_assertion_failures_total[1h]))");
      List<Sample> failed = obs.prometheus().query(assertions);
      assertThat(failed).allSatisfy(x -> assertThat(x.value()).isZero());
      day.step(
          assertions,
          "PromQL through Prometheus's API",
          describe(failed) + ": no posting's own assertion failed; the audit found it");
      day.runbook().requireSays("`reconciliation.finding` with discrepancy LEDGER_IMBALANCE");
      List<String> events =
          reconciler.process().logLines("\"reconciliation.finding\"").stream()
              .filter(l -> l.contains("LEDGER_IMBALANCE"))
              .toList();
      assertThat(events).isNotEmpty();
      day.step(
          "`reconciliation.finding` with discrepancy LEDGER_IMBALANCE",
          "read the reconciler's log",
          events.size() + " event(s)");
      String findings =
          day.runbook()
              .requireSays(
                  "SELECT f.subject, f.account_id, f.payout_id, f.detail, r.finished_at FROM"
                      + " reconciliation_finding f JOIN reconciliation_run r ON r.id = f.run_id"
                      + " WHERE f.discrepancy = 'LEDGER_IMBALANCE' ORDER BY r.finished_at DESC"
                      + " LIMIT 20;");
      List<Map<String, Object>> rows = Sql.rows(run.paydb(), findings);
      assertThat(rows)
          .singleElement()
          .satisfies(r -> assertThat(r).containsEntry("account_id", account));
      day.step(findings, "paydb, as its runtime role", "one finding: " + rows.get(0).get("detail"));
      String byHand =
          day.runbook()
              .requireSays(
                  "SELECT b.account_id, b.base_minor, b.slots_minor, b.balance_minor,"
                      + " (SELECT coalesce(sum(e.signed_amount), 0) FROM ledger_entry e"
                      + " WHERE e.account_id = b.account_id) AS ledger_sum"
                      + " FROM account_balance b WHERE b.account_id = '<accountId>';");
      Map<String, Object> drift =
          Sql.rows(run.paydb(), byHand.replace("<accountId>", account)).get(0);
      long balance = ((Number) drift.get("balance_minor")).longValue();
      long ledgerSum = ((Number) drift.get("ledger_sum")).longValue();
      assertThat(balance - ledgerSum).isEqualTo(100);
      day.step(
          byHand,
          "paydb, read-only",
          "balance " + balance + ", ledger sum " + ledgerSum + ": the balance overstates by 100");
      day.runbook().requireSays("scale the payout workers to 0 if more than a few accounts");
      day.step(
          "Stop new payouts for the affected accounts if the imbalance overstates what they hold",
          "one account, with nothing left PENDING",
          "workers left running (the runbook scales them to 0 past a few accounts)");
      day.runbook().requireSays("every group balances");
      String correction =
          day.runbook()
              .requireSays(
                  "UPDATE account SET balance_minor = (SELECT coalesce(sum(signed_amount), 0) FROM"
                      + " ledger_entry WHERE account_id = '<accountId>') - (SELECT"
                      + " coalesce(sum(balance_minor), 0) FROM account_balance_slot WHERE"
                      + " account_id = '<accountId>') WHERE id = '<accountId>';");
      int corrected = Sql.updateAsOwner(run.paydb(), correction.replace("<accountId>", account));
      assertThat(corrected).isEqualTo(1);
      day.step(
          correction,
          "as paydb's owner, in one session (the runbook's correction of a drifted balance)",
          corrected + " row: the balance is its ledger sum again");

      assertThat(reconcile(run, reconciler, injected, Instant.now().plusSeconds(1)))
          .isEqualTo("COMPLETED");
      Duration resolved = obs.awaitResolved(day.alert(), imbalance, FIRE_BUDGET);
      List<Sample> after = obs.prometheus().query(confirm);
      assertThat(after).allSatisfy(x -> assertThat(x.value()).isZero());
      day.step(
          "The next reconciliation run reports 0 LEDGER_IMBALANCE",
          "a run of the next window, launched as the operator; the query again",
          describe(after));
      assertThat(w.process().logLines("ledger.assertion_failed")).isEmpty();
      day.recovered(
          "the balance was set back to its ledger sum; the next run reported 0 LEDGER_IMBALANCE"
              + " and the page resolved "
              + seconds(resolved)
              + " after it was launched");
      run.terminate(w, "checked");
      obs.forget(w.process());
      obs.forget(reconciler.process());
    }
    DAYS.add(day);
  }

  /**
   * The resolution SLA of the mismatch game day's reconciler: A-10's 4 hours is not a game day's.
   */
  static final String SHORT_SLA = "30s";

  @Test
  @Order(3)
  @Tag("long")
  void aSubmissionUnderARealPayoutsIdWithOtherContentPagesAndIsAbandoned() {
    GameDay day =
        new GameDay(
            "Somebody submits under a real payout's id with another beneficiary (ADR 0140)",
            "FencepostContentMismatch",
            "page",
            Runbook.named("content-mismatch"));
    Map<String, String> mismatch = Map.of("discrepancy", "SUBMISSION_CONTENT_MISMATCH");
    watchTheServices(LockBackend.POSTGRES);
    awaitQuiet(day.alert(), mismatch);
    try (ExperimentRun run =
            ExperimentRun.start(
                "gameday-mismatch", "Game day: a submission with other content", Guards.ALL_ON);
        Reconciler reconciler =
            Reconciler.start(
                run, List.of("--fencepost.reconciliation.resolution-sla=" + SHORT_SLA))) {
      Instant from = Instant.now().truncatedTo(ChronoUnit.SECONDS);
      Payout payout = run.payout("gdmis", FUNDING, AMOUNT);
      String account = payout.accountId().value();
      String id = payout.id().toString();
      obs.watch("reconciliation-job", reconciler.process());

      day.injected(
          "a PAYOUT_WORKER caller takes the account's lock and submits the PENDING payout's id to"
              + " the proxy with another beneficiary (`ben-somebody-else`); the rail moves it");
      long intruderToken = intruderSubmits(payout, "ben-somebody-else");
      Worker w = servedWorker(run, "w1").start();
      obs.watch("payout-job", w.process());
      run.awaitState(payout, PayoutState.RAIL_AMBIGUOUS);
      Payout next = run.fixtures().createPendingPayout(payout.accountId(), AMOUNT, "EUR", "ben-1");
      Instant ambiguous = Instant.now().plusSeconds(1).truncatedTo(ChronoUnit.SECONDS);
      assertThat(reconcile(run, reconciler, from, ambiguous)).isEqualTo("COMPLETED");
      obs.awaitFiring(day, mismatch, FIRE_BUDGET);

      List<Sample> found =
          runbookQuery(
              day,
              "max by (discrepancy) (fencepost_reconciliation_last_run_findings{discrepancy=\"SUBMISSION_CONTENT_MISMATCH\"})");
      assertThat(found).singleElement().satisfies(x -> assertThat(x.value()).isEqualTo(1.0));
      String findings =
          day.runbook()
              .requireSays(
                  "SELECT f.payout_id, f.detail, r.finished_at FROM reconciliation_finding f JOIN"
                      + " reconciliation_run r ON r.id = f.run_id WHERE f.discrepancy ="
                      + " 'SUBMISSION_CONTENT_MISMATCH' ORDER BY r.finished_at DESC LIMIT 20;");
      List<Map<String, Object>> rows = Sql.rows(run.paydb(), findings);
      assertThat(rows)
          .singleElement()
          .satisfies(r -> assertThat(String.valueOf(r.get("payout_id"))).isEqualTo(id));
      day.step(findings, "paydb, as its runtime role", "one finding for the payout");
      String ours =
          day.runbook()
              .requireSays(
                  "SELECT id, account_id, amount_minor, currency, beneficiary_ref, client_reference,"
                      + " state FROM payout WHERE id = '<payoutId>';");
      assertThat(Sql.rows(run.paydb(), ours.replace("<payoutId>", id)))
          .singleElement()
          .satisfies(
              r ->
                  assertThat(r)
                      .containsEntry("state", "RAIL_AMBIGUOUS")
                      .containsEntry("beneficiary_ref", payout.beneficiaryRef()));
      day.step(
          ours,
          "paydb, as its runtime role",
          "RAIL_AMBIGUOUS, beneficiary " + payout.beneficiaryRef());
      String theirs =
          day.runbook()
              .requireSays(
                  "SELECT id, account_id, amount_minor, currency, beneficiary_ref, client_reference,"
                      + " fencing_token, outcome, created_at FROM rail_submission WHERE payout_id ="
                      + " '<payoutId>';");
      assertThat(Sql.rows(stack.proxydb(), theirs.replace("<payoutId>", id)))
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r).containsEntry("beneficiary_ref", "ben-somebody-else");
                assertThat(((Number) r.get("fencing_token")).longValue()).isEqualTo(intruderToken);
              });
      day.step(
          theirs,
          "proxydb, as its runtime role",
          "one submission: beneficiary ben-somebody-else, token "
              + intruderToken
              + " (not the worker's)");
      day.runbook().requireSays("`payout.rail_content_mismatch`");
      List<String> refused = w.process().logLines("payout.rail_content_mismatch");
      assertThat(refused).isNotEmpty();
      day.step(
          "Events: `payout.rail_content_mismatch` (ERROR, with the differing `fields`)",
          "read the worker's log",
          refused.size() + " event(s)");
      String pages =
          "max by (discrepancy) (fencepost_reconciliation_last_run_findings{severity=\"PAGE\"})";
      Runbook.named("reconciliation-page-finding").requireSays(pages);
      day.step(
          "reconciliation-page-finding.md: " + pages,
          "PromQL through Prometheus's API: what else the same run paged for",
          describe(obs.prometheus().query(pages)));
      day.runbook().requireSays("`rail.submission.intent_recorded` for that payout id");
      List<String> intents =
          stack.proxy(Guards.ALL_ON).logLines("rail.submission.intent_recorded").stream()
              .filter(l -> l.contains(id))
              .toList();
      assertThat(intents).isNotEmpty();
      day.step(
          "Find the caller from the proxy's logs (`rail.submission.intent_recorded` for that payout"
              + " id) and revoke its identity",
          "read the proxy's log; the identity is not revoked here (the local issuer's"
              + " PAYOUT_WORKER client is every experiment worker's)",
          intents.size() + " intent(s) for the payout id, the intruder's first");

      day.runbook().requireSays("its account's later payouts wait behind it");
      assertThat(run.reload(next).state()).isEqualTo(PayoutState.PENDING);
      day.step(
          "the payout stays RAIL_AMBIGUOUS ... and its account's later payouts wait behind it",
          "paydb: the account's next payout, created after the mismatch",
          "PENDING while the worker runs: nothing moves for the account");
      day.runbook().requireSays("abandon it by [resolve-ambiguous-payout.md]");
      Runbook.named("resolve-ambiguous-payout")
          .requireSays("/actuator/payoutops/<payoutId>/abandon");
      String reason = "game day: content mismatch, security incident GD-2";
      HttpResponse<String>[] abandoned = new HttpResponse[1];
      // Before the SLA the abandon answers 409 WITHIN_SLA (the runbook says so): wait past it.
      Awaitility.await("the abandon accepted once the resolution SLA has passed")
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofSeconds(2))
          .until(
              () -> {
                abandoned[0] =
                    TestHttp.unchecked(
                        () ->
                            management(reconciler.process())
                                .post(
                                    "/actuator/payoutops/" + id + "/abandon",
                                    "{\"reason\":\"" + reason + "\"}"));
                if (abandoned[0].statusCode() == 409) {
                  assertThat(abandoned[0].body()).contains("WITHIN_SLA");
                }
                return abandoned[0].statusCode() == 200;
              });
      day.step(
          "resolve-ambiguous-payout.md: POST https://$HOST:9086/actuator/payoutops/<payoutId>/abandon",
          "as an OPERATOR, the incident in the reason, once the SLA ("
              + SHORT_SLA
              + " here) passed",
          "200 " + TestHttp.json(abandoned[0]).path("state").asString());

      run.awaitState(next, PayoutState.POSTED);
      assertThat(reconcile(run, reconciler, ambiguous, Instant.now().plusSeconds(1)))
          .isEqualTo("COMPLETED");
      Duration resolved = obs.awaitResolved(day.alert(), mismatch, FIRE_BUDGET);
      day.step(
          "After the abandon the payout is ABANDONED, the account's next payouts move, and later"
              + " runs no longer report it.",
          "paydb; the account's next payout; a run of the next window",
          "ABANDONED; the next payout POSTED; the next run reported 0");
      assertThat(run.reload(payout).state()).isEqualTo(PayoutState.ABANDONED);
      assertThat(run.movements(next)).isEqualTo(1);
      day.recovered(
          "the payout was abandoned by an operator past the SLA (never re-sent), the account's next"
              + " payout was POSTED, and the page resolved "
              + seconds(resolved)
              + " after the next window's run was launched");
      run.terminate(w, "checked");
      obs.forget(w.process());
      obs.forget(reconciler.process());
    }
    DAYS.add(day);
  }

  /**
   * A PAYOUT_WORKER caller with a real grant for the payout's account submits its id with other
   * content (ADR 0140): session, acquire, submit, release, through the real lock server and proxy.
   *
   * @return the token it submitted under
   */
  long intruderSubmits(Payout payout, String beneficiaryRef) {
    TestHttp locks = asWorker(stack.lockServer(LockBackend.POSTGRES).baseUrl());
    String key = "payout:" + payout.accountId().value();
    JsonNode session =
        ok(
            TestHttp.unchecked(
                () ->
                    locks.post("/v1/sessions", "{\"owner\":\"gd-intruder\",\"ttlMillis\":60000}")));
    String sessionId = session.path("sessionId").asString();
    JsonNode grant =
        ok(
            TestHttp.unchecked(
                () ->
                    locks.post(
                        "/v1/locks/" + key + "/acquire",
                        "{\"sessionId\":\"" + sessionId + "\",\"waitMillis\":0}")));
    long token = grant.path("token").asLong();
    String body =
        "{\"payoutId\":\""
            + payout.id()
            + "\",\"accountId\":\""
            + payout.accountId().value()
            + "\",\"fencingToken\":"
            + token
            + ",\"clientReference\":\""
            + payout.clientReference()
            + "\",\"amountMinor\":"
            + payout.amountMinor()
            + ",\"currency\":\""
            + payout.currency()
            + "\",\"beneficiaryRef\":\""
            + beneficiaryRef
            + "\",\"grant\":\""
            + grant.path("signedGrant").asString()
            + "\"}";
    JsonNode submitted =
        ok(
            TestHttp.unchecked(
                () ->
                    asWorker(stack.proxy(Guards.ALL_ON).baseUrl()).post("/v1/submissions", body)));
    assertThat(submitted.path("outcome").asString()).isEqualTo("ACKED");
    HttpResponse<String> released =
        TestHttp.unchecked(
            () ->
                locks.post(
                    "/v1/locks/" + key + "/release",
                    "{\"sessionId\":\"" + sessionId + "\",\"token\":" + token + "}"));
    assertThat(released.statusCode()).as(released.body()).isBetween(200, 204);
    TestHttp.unchecked(() -> locks.delete("/v1/sessions/" + sessionId));
    return token;
  }

  static TestHttp asWorker(String baseUrl) {
    return new TestHttp(
        HttpClient.newHttpClient(),
        baseUrl,
        Duration.ofSeconds(30),
        request -> LockServers.identity().tokens(FencepostRole.PAYOUT_WORKER).currentToken());
  }

  static JsonNode ok(HttpResponse<String> response) {
    assertThat(response.statusCode()).as(response.body()).isBetween(200, 201);
    return TestHttp.json(response);
  }

  @Test
  @Order(4)
  @Tag("long")
  void aRailMovementNamingNoPayoutPagesAndItsIssueIsTakenAndResolvedByAnOperator() {
    GameDay day =
        new GameDay(
            "A rail movement under a reference that names no payout, found by reconciliation",
            "FencepostReconciliationPageFinding",
            "page",
            Runbook.named("reconciliation-page-finding"));
    Map<String, String> unknown = Map.of("discrepancy", "MOVEMENT_WITHOUT_PAYOUT");
    watchTheServices(LockBackend.POSTGRES);
    awaitQuiet(day.alert(), unknown);
    try (ExperimentRun run =
            ExperimentRun.start(
                "gameday-nopayout", "Game day: a movement for no payout", Guards.ALL_ON);
        Reconciler reconciler = Reconciler.start(run, List.of())) {
      Instant from = Instant.now().truncatedTo(ChronoUnit.SECONDS);
      Payout payout = run.payout("gdnop", FUNDING, AMOUNT);
      Worker w = servedWorker(run, "w1").start();
      obs.watch("payout-job", w.process());
      obs.watch("reconciliation-job", reconciler.process());
      run.awaitState(payout, PayoutState.POSTED);

      String reference = "gdnopay" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
      day.injected(
          "a movement of 1234 EUR to `ben-unknown` under a client reference no payout has, sent to"
              + " the rail with the proxy's credential (past both guards)");
      HttpResponse<String> rogue = rogueMovement(reference, 1_234, "EUR", "ben-unknown");
      assertThat(rogue.statusCode()).as(rogue.body()).isBetween(200, 201);
      Instant moved = Instant.now().plusSeconds(1).truncatedTo(ChronoUnit.SECONDS);
      assertThat(reconcile(run, reconciler, from, moved)).isEqualTo("COMPLETED");
      obs.awaitFiring(day, unknown, FIRE_BUDGET);

      List<Sample> found =
          runbookQuery(
              day,
              "max by (discrepancy) (fencepost_reconciliation_last_run_findings{severity=\"PAGE\"})");
      assertThat(found)
          .anySatisfy(
              x -> {
                assertThat(x.labels()).containsEntry("discrepancy", "MOVEMENT_WITHOUT_PAYOUT");
                assertThat(x.value()).isEqualTo(1.0);
              });
      String findings =
          day.runbook()
              .requireSays(
                  "SELECT f.discrepancy, f.subject, f.payout_id, f.account_id, f.detail,"
                      + " r.finished_at FROM reconciliation_finding f JOIN reconciliation_run r ON"
                      + " r.id = f.run_id WHERE f.severity = 'PAGE' ORDER BY r.finished_at DESC"
                      + " LIMIT 50;");
      List<Map<String, Object>> rows = Sql.rows(run.paydb(), findings);
      assertThat(rows)
          .anySatisfy(
              r ->
                  assertThat(r)
                      .containsEntry("discrepancy", "MOVEMENT_WITHOUT_PAYOUT")
                      .containsEntry("subject", reference));
      day.step(findings, "paydb, as its runtime role", "MOVEMENT_WITHOUT_PAYOUT for the reference");
      String entry =
          day.runbook()
              .requireSays(
                  "SELECT entry_ref, end_to_end_id, amount_minor, currency, beneficiary_ref,"
                      + " booked_at, source FROM reconciliation_statement_entry WHERE end_to_end_id"
                      + " = '<subject>';");
      List<Map<String, Object>> entries =
          Sql.rows(run.paydb(), entry.replace("<subject>", reference));
      assertThat(entries)
          .singleElement()
          .satisfies(r -> assertThat(r).containsEntry("beneficiary_ref", "ben-unknown"));
      day.step(entry, "paydb, as its runtime role", "one entry: 1234 EUR to ben-unknown");
      List<String> railLog = stack.stub().logLines(reference);
      day.step(
          "the entry (`reconciliation_statement_entry`) and the rail's logs for the caller",
          "read the rail stub's log for the reference",
          railLog.size() + " line(s): the caller is the rail proxy's own credential");

      // The finding's lifecycle (ADR 0179): the on-call takes the issue, then resolves it.
      day.runbook().requireSays("/actuator/findings?status=OPEN&severity=PAGE");
      HttpResponse<String> open =
          TestHttp.unchecked(
              () ->
                  management(reconciler.process())
                      .get("/actuator/findings?status=OPEN&severity=PAGE"));
      assertThat(open.statusCode()).as(open.body()).isEqualTo(200);
      long issue = -1;
      for (JsonNode item : TestHttp.json(open).path("items")) {
        if (reference.equals(item.path("subject").asString())) {
          issue = item.path("id").asLong();
        }
      }
      assertThat(issue).as(open.body()).isPositive();
      day.step(
          "GET https://$HOST:9086/actuator/findings?status=OPEN&severity=PAGE",
          "as an OPERATOR on the reconciler's management port",
          "200: the issue for the reference, OPEN");
      long taken = issue;
      day.runbook().requireSays("/actuator/findings/<id>/acknowledge");
      HttpResponse<String> acknowledged =
          TestHttp.unchecked(
              () ->
                  management(reconciler.process())
                      .post(
                          "/actuator/findings/" + taken + "/acknowledge",
                          "{\"reason\":\"game day: on-call investigating, incident GD-3\"}"));
      assertThat(acknowledged.statusCode()).as(acknowledged.body()).isEqualTo(200);
      assertThat(TestHttp.json(acknowledged).path("status").asString()).isEqualTo("ACKNOWLEDGED");
      day.step(
          "POST https://$HOST:9086/actuator/findings/<id>/acknowledge",
          "as an OPERATOR, with a reason",
          "200 ACKNOWLEDGED");
      day.step(
          "`MOVEMENT_WITHOUT_PAYOUT`: security and finance at once",
          "not executed: the caller is this game day (the rail credential stays)",
          "escalation recorded in the resolve's reason");
      day.runbook().requireSays("/actuator/findings/<id>/resolve");
      HttpResponse<String> done =
          TestHttp.unchecked(
              () ->
                  management(reconciler.process())
                      .post(
                          "/actuator/findings/" + taken + "/resolve",
                          "{\"reason\":\"game day GD-3: the movement was the game day's own;"
                              + " security and finance informed\"}"));
      assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
      assertThat(TestHttp.json(done).path("status").asString()).isEqualTo("RESOLVED");
      day.step(
          "POST https://$HOST:9086/actuator/findings/<id>/resolve",
          "as an OPERATOR, with the reason required to resolve",
          "200 RESOLVED");

      assertThat(reconcile(run, reconciler, moved, Instant.now().plusSeconds(1)))
          .isEqualTo("COMPLETED");
      Duration resolved = obs.awaitResolved(day.alert(), unknown, FIRE_BUDGET);
      day.step(
          "The next hourly run reports 0 for the class.",
          "a run of the next window, launched as the operator",
          "0 MOVEMENT_WITHOUT_PAYOUT; the page resolved");
      day.recovered(
          "detected, not repaired (the money is the rail's to recall): the issue was taken and"
              + " resolved by an operator with reasons, and the page resolved "
              + seconds(resolved)
              + " after the next window's run was launched");
      run.terminate(w, "checked");
      obs.forget(w.process());
      obs.forget(reconciler.process());
    }
    DAYS.add(day);
  }

  /** How long after the seeded success turns 2 h old: the time to start the failed run first. */
  static final Duration STALE_LEAD = Duration.ofSeconds(45);

  @Test
  @Order(5)
  @Tag("long")
  void aReconciliationThatCannotReadTheProxyIsReportedOnceTheLastSuccessIsTwoHoursOld() {
    GameDay day =
        new GameDay(
            "The hourly reconciliation fails (the proxy's read API unreachable) two hours after its"
                + " last success",
            "FencepostReconciliationStale",
            "ticket",
            Runbook.named("reconciliation-stale"));
    watchTheServices(LockBackend.POSTGRES);
    try (ExperimentRun run =
        ExperimentRun.start(
            "gameday-stale", "Game day: reconciliation not succeeding", Guards.ALL_ON)) {
      Worker w = servedWorker(run, "w1").start();
      // The reconciler's route to the proxy's read API broken: a port nothing listens on.
      Reconciler broken =
          Reconciler.start(
              run,
              List.of(
                  "--fencepost.reconciliation.proxy-base-url=https://127.0.0.1:" + closedPort()));
      try {
        // Any worker scraped reports +Inf until its paydb has a completed run; the alert is the
        // max over all workers, so earlier game days' workers must have gone stale first.
        awaitQuiet(day.alert(), Map.of());
        // The local equivalent of two hours of history: the last completed run, 2 h minus the
        // lead ago. A finished run is immutable, so it is inserted as it would have been written.
        Object crossing =
            Sql.valueAsOwner(
                run.paydb(), "SELECT now() + interval '" + STALE_LEAD.toSeconds() + " seconds'");
        Instant twoHoursOld = ((java.sql.Timestamp) crossing).toInstant();
        Sql.asOwner(
            run.paydb(),
            "INSERT INTO reconciliation_run (id, window_from, window_to, triggered_by, status,"
                + " started_at, finished_at) VALUES ('"
                + UUID.randomUUID()
                + "', now() - interval '3 hours', now() - interval '2 hours',"
                + " 'game day: the last hourly run that succeeded', 'COMPLETED',"
                + " now() - interval '7200 seconds' + interval '"
                + (STALE_LEAD.toSeconds() - 5)
                + " seconds', now() - interval '7200 seconds' + interval '"
                + STALE_LEAD.toSeconds()
                + " seconds')");
        obs.watch("payout-job", w.process());
        String age =
            day.runbook().requireSays("max(fencepost_reconciliation_last_success_age_seconds)");
        List<Sample> young = obs.prometheus().query(age);
        assertThat(young)
            .singleElement()
            .satisfies(x -> assertThat(x.value()).isBetween(7000.0, 7200.0));
        assertThat(obs.active(day.alert(), Map.of())).as("quiet below 2 h").isFalse();

        day.injected(
            "the hourly run fails (the reconciler's proxy URL points at a port nothing listens on)"
                + " when the last success is 2 h old; measured from the moment it turned 2 h old",
            twoHoursOld);
        Instant from = Instant.now().minus(Duration.ofMinutes(10)).truncatedTo(ChronoUnit.SECONDS);
        Instant to = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        assertThat(reconcile(run, broken, from, to)).isEqualTo("FAILED");
        obs.awaitFiring(day, Map.of(), FIRE_BUDGET);

        List<Sample> old = obs.prometheus().query(age);
        assertThat(old).singleElement().satisfies(x -> assertThat(x.value()).isGreaterThan(7200));
        day.step(age, "PromQL through Prometheus's API", describe(old));
        String runs =
            day.runbook()
                .requireSays(
                    "SELECT id, status, window_from, window_to, started_at, finished_at, error FROM"
                        + " reconciliation_run ORDER BY started_at DESC LIMIT 10;");
        List<Map<String, Object>> rows = Sql.rows(run.paydb(), runs);
        Map<String, Object> failed = rows.get(0);
        assertThat(failed).containsEntry("status", "FAILED");
        assertThat(String.valueOf(failed.get("error"))).isNotBlank();
        day.step(
            runs,
            "paydb, as its runtime role",
            "the latest FAILED, error: " + abbreviate(String.valueOf(failed.get("error"))));
        day.runbook().requireSays("`reconciliation.failed`");
        List<String> failedEvents = broken.process().logLines("\"reconciliation.failed\"");
        assertThat(failedEvents).isNotEmpty();
        day.step(
            "A run that could not read a source is FAILED with `reconciliation.failed`",
            "read the reconciler's log",
            failedEvents.size() + " `reconciliation.failed` event(s)");
        day.runbook().requireSays("kubectl get cronjob reconciliation-job");
        day.step(
            "kubectl get cronjob reconciliation-job; kubectl get jobs ...",
            "no CronJob locally: a long-running reconciler launched on its management port",
            "its last launch FAILED (above)");
        day.runbook().requireSays("the proxy: its health on 9082");
        HttpResponse<String> proxyHealth =
            TestHttp.unchecked(
                () -> management(stack.proxy(Guards.ALL_ON)).get("/actuator/health"));
        assertThat(proxyHealth.statusCode()).isEqualTo(200);
        day.step(
            "FAILED runs: fix the source named in `error` (the proxy: its health on 9082 ...)",
            "GET the proxy's /actuator/health; the `error` names the proxy's read API",
            proxyHealth.statusCode()
                + " UP: the proxy is healthy, the reconciler's route to it is wrong; the"
                + " reconciler restarted with the proxy's URL (the fix)");
      } finally {
        broken.close();
      }
      try (Reconciler fixed = Reconciler.start(run, List.of())) {
        String launch =
            day.runbook().requireSays("https://$HOST:9086/actuator/batchjobs/reconciliationJob");
        Instant from = Instant.now().minus(Duration.ofMinutes(10)).truncatedTo(ChronoUnit.SECONDS);
        Instant to = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        assertThat(reconcile(run, fixed, from, to)).isEqualTo("COMPLETED");
        day.step(
            "POST " + launch + " -d '{\"parameters\":\"windowFrom=...,windowTo=...\"}'",
            "as an OPERATOR, the missed window, on the fixed reconciler",
            "COMPLETED");
        Duration resolved = obs.awaitResolved(day.alert(), Map.of(), FIRE_BUDGET);
        String age = "max(fencepost_reconciliation_last_success_age_seconds)";
        List<Sample> fresh = obs.prometheus().query(age);
        assertThat(fresh).singleElement().satisfies(x -> assertThat(x.value()).isLessThan(3600));
        day.step(
            "A new COMPLETED row in `reconciliation_run`, the gauge back under an hour within a"
                + " refresh",
            "PromQL: " + age,
            describe(fresh));
        day.recovered(
            "the reconciler restarted with its proxy URL fixed completed the missed window; the"
                + " ticket resolved "
                + seconds(resolved)
                + " after that run was launched");
      }
      run.terminate(w, "checked");
      obs.forget(w.process());
    }
    DAYS.add(day);
  }

  static int closedPort() {
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static String abbreviate(String s) {
    return s.length() <= 160 ? s : s.substring(0, 157) + "...";
  }

  /**
   * Launches a run of the window {@code from}..{@code to} as the operator, as the runbooks do, and
   * waits for its row in paydb to finish; returns its status (COMPLETED or FAILED). Two reconcilers
   * of one paydb number their executions alike, so the row is the one that is new since the launch.
   */
  static String reconcile(ExperimentRun run, Reconciler reconciler, Instant from, Instant to) {
    Set<Object> before = new java.util.HashSet<>();
    Sql.rows(run.paydb(), "SELECT id FROM reconciliation_run")
        .forEach(r -> before.add(r.get("id")));
    HttpResponse<String> launched =
        reconciler.launch(
            "windowFrom="
                + from.truncatedTo(ChronoUnit.SECONDS)
                + ",windowTo="
                + to.truncatedTo(ChronoUnit.SECONDS));
    assertThat(launched.statusCode()).as(launched.body()).isBetween(200, 202);
    long execution = TestHttp.json(launched).path("executionId").asLong();
    String by = "batch:reconciliationJob:" + execution;
    String[] status = new String[1];
    Awaitility.await("reconciliation run of execution " + execution + " finished")
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              for (Map<String, Object> r :
                  Sql.rows(
                      run.paydb(),
                      "SELECT id, status FROM reconciliation_run WHERE (triggered_by = '"
                          + by
                          + "' OR triggered_by LIKE '"
                          + by
                          + ":%') AND status <> 'RUNNING'")) {
                if (!before.contains(r.get("id"))) {
                  status[0] = String.valueOf(r.get("status"));
                }
              }
              if (status[0] == null && batchFailed(reconciler, execution)) {
                status[0] = "FAILED (no run recorded)";
              }
              return status[0] != null;
            });
    return status[0];
  }

  /** Whether the batch execution ended FAILED (before any reconciliation run row was written). */
  static boolean batchFailed(Reconciler reconciler, long execution) {
    HttpResponse<String> list =
        TestHttp.unchecked(() -> management(reconciler.process()).get(Reconciler.LAUNCH));
    return list.statusCode() == 200 && statusOf(TestHttp.json(list), execution).equals("FAILED");
  }

  static String statusOf(JsonNode node, long execution) {
    if (node.isObject() && node.path("executionId").asLong(-1) == execution) {
      return node.path("status").asString();
    }
    for (JsonNode child : node) {
      String s = statusOf(child, execution);
      if (!s.isEmpty()) {
        return s;
      }
    }
    return "";
  }
}
