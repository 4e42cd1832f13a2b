package dev.fencepost.reconciliation;

import static dev.fencepost.testsupport.generate.Generated.forAll;
import static dev.fencepost.testsupport.generate.Generated.notAJsonObject;
import static dev.fencepost.testsupport.generate.Generated.oneOf;
import static dev.fencepost.testsupport.generate.Generated.pick;
import static dev.fencepost.testsupport.generate.Generated.string;
import static dev.fencepost.testsupport.generate.Generated.withControlCharacter;

import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.testkit.PaydbFixtures;
import dev.fencepost.testsupport.generate.BadBatchJobCalls;
import dev.fencepost.testsupport.http.Refusals;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Generated bad input to the reconciliation application's management endpoints (seeded), each with
 * an operator's token so that it reaches the operation. Every case is a 4xx {@code
 * application/problem+json} with a stable code, and paydb (every row of its money, audit and
 * reconciliation tables) and batchdb's job instances, executions and parameters are the same after
 * as before:
 *
 * <ul>
 *   <li>{@code /actuator/batchjobs/reconciliationJob}: batch-support's refusals ({@link
 *       BadBatchJobCalls}), plus the job's own: a window that is reversed, empty, unparseable, half
 *       given or longer than {@code max-window} is 400 {@code INVALID_PARAMETERS} before an
 *       execution exists.
 *   <li>{@code /actuator/payoutops/{payoutId}/{action}}: an id that is not a UUID is 400 {@code
 *       INVALID_REQUEST}, a UUID of no payout 404 {@code PAYOUT_NOT_FOUND}, an action other than
 *       cancel or abandon 400; on a real PENDING payout, a missing, blank, array, object or
 *       control-character reason, an operator naming someone else, or a body that is not a JSON
 *       object is 400 {@code INVALID_REQUEST}, and the payout stays PENDING.
 * </ul>
 */
class ReconciliationBadInputTest extends ReconciliationTestBase {

  private static final String[] BAD_WINDOWS = {
    "windowFrom=2026-01-02T00:00:00Z,windowTo=2026-01-01T00:00:00Z",
    "windowFrom=2026-01-01T00:00:00Z,windowTo=2026-01-01T00:00:00Z",
    "windowFrom=2026-01-01T00:00:00Z",
    "windowTo=2026-01-01T00:00:00Z",
    "windowFrom=yesterday,windowTo=today",
    "windowFrom=2026-01-01,windowTo=2026-01-02",
    "windowFrom=2026-01-01T00:00:00Z,windowTo=2026-01-03T00:00:01Z",
    "windowFrom=2020-01-01T00:00:00Z,windowTo=2026-01-01T00:00:00Z",
    "windowFrom=2026-01-01T00:00:00+01:00,windowTo=x"
  };

  private Payout pending;

  @BeforeEach
  void aPendingPayout() {
    PaydbFixtures fixtures = new PaydbFixtures(STACK.appPaydb.dataSource(), "bad-input-test");
    AccountId account =
        AccountId.of("acc-bad-" + ProcessHandle.current().pid() + "-" + System.nanoTime() % 100000);
    fixtures.createAccount(account, 50_000);
    pending = fixtures.createPendingPayout(account, 1_000, "EUR", "ben-bad");
  }

  @Test
  void generatedBadLaunchesAndListingsOfTheReconciliationAreRefusedAndChangeNothing() {
    forAll(
        200,
        r -> BadBatchJobCalls.of(r, ReconciliationJobConfiguration.JOB_NAME, BAD_WINDOWS),
        call ->
            Refusals.assertRefusedWithoutChange(
                ReconciliationBadInputTest::snapshot,
                () -> World.send(call.method(), management(call.path()), call.body())));
  }

  @Test
  void generatedBadOperatorActionsAreRefusedAndChangeNothing() {
    forAll(
        300,
        this::badOperatorAction,
        call ->
            Refusals.assertRefusedWithoutChange(
                ReconciliationBadInputTest::snapshot,
                () -> World.send("POST", management(call.get(0)), call.get(1))));
  }

  /** Batch validated the window only after it had written the job instance: one row per refusal. */
  @Test
  void aWindowTheJobRefusesLeavesNoJobInstanceBehind() {
    String before = snapshot();

    var refused =
        World.send(
            "POST",
            management("/actuator/batchjobs/reconciliationJob"),
            "{\"parameters\":\"windowFrom=2026-01-02T00:00:00Z,windowTo=2026-01-01T00:00:00Z\"}");

    org.assertj.core.api.Assertions.assertThat(Refusals.assertRefused(refused))
        .isEqualTo("INVALID_PARAMETERS");
    org.assertj.core.api.Assertions.assertThat(snapshot()).isEqualTo(before);
  }

  /** The path and the body of one bad operator action. */
  private List<String> badOperatorAction(Random r) {
    String ok = "{\"reason\":\"customer withdrew\"}";
    String path = "/actuator/payoutops/" + pending.id() + "/" + pick(r, "cancel", "abandon");
    return switch (r.nextInt(5)) {
      case 0 ->
          List.of(
              "/actuator/payoutops/" + encode(badPayoutId(r)) + "/" + pick(r, "cancel", "abandon"),
              ok);
      case 1 ->
          List.of(
              "/actuator/payoutops/"
                  + pending.id()
                  + "/"
                  + encode(
                      oneOf(
                          r,
                          x -> pick(x, "Cancel", "CANCEL", "delete", "approve", "post"),
                          x -> string(x, "abcxyz", 1, 20),
                          x -> withControlCharacter(x, "cancel", ""))),
              ok);
      case 2 ->
          List.of(
              path,
              pick(
                  r,
                  "{}",
                  "{\"reason\":\"\"}",
                  "{\"reason\":\"   \"}",
                  "{\"reason\":null}",
                  "{\"operator\":\"mallory\",\"reason\":\"blame someone else\"}"));
      case 3 ->
          List.of(
              path,
              "{\"reason\":"
                  + oneOf(
                      r,
                      // The actuator reads the body as a map of strings: web-support's strict
                      // JSON refuses a scalar of another type instead of turning it into text.
                      x ->
                          pick(
                              x,
                              "[]",
                              "{}",
                              "[\"a\"]",
                              "{\"a\":\"b\"}",
                              "[1,2]",
                              "true",
                              "false",
                              "5",
                              "-1",
                              "1.5",
                              "1e3"),
                      x -> quoted(withControlCharacter(x, "customer ", "withdrew")))
                  + "}");
      default -> {
        String body = notAJsonObject(r);
        yield List.of(path, body.isBlank() ? "[]" : body);
      }
    };
  }

  private static String badPayoutId(Random r) {
    return oneOf(
        r,
        x -> java.util.UUID.randomUUID().toString(),
        x -> string(x, "0123456789abcdef-", 1, 60),
        x -> java.util.UUID.randomUUID() + "x",
        x -> withControlCharacter(x, "po", "1"));
  }

  /** paydb's tables and batchdb's job rows, as text. */
  private static String snapshot() {
    JdbcClient paydb = JdbcClient.create(STACK.appPaydb.dataSource());
    StringBuilder text = new StringBuilder();
    for (String table :
        List.of("account", "payout", "ledger_group", "ledger_entry", "audit_event")) {
      text.append(
          paydb
              .sql("SELECT string_agg(t::text, '|' ORDER BY t::text) FROM " + table + " t")
              .query(String.class)
              .optional()
              .orElse(""));
      text.append('\n');
    }
    text.append(
        JdbcClient.create(STACK.batchdb.dataSource())
            .sql(
                """
                SELECT (SELECT count(*) FROM batch_job_instance) || '/' ||
                       (SELECT count(*) FROM batch_job_execution) || '/' ||
                       (SELECT count(*) FROM batch_job_execution_params)
                """)
            .query(String.class)
            .single());
    return text.toString();
  }

  private static String quoted(String text) {
    return World.JSON.writeValueAsString(text);
  }

  private static String encode(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
