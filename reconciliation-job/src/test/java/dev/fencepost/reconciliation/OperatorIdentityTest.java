package dev.fencepost.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.launcher.LocalIdentity;
import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payment.testkit.PaydbFixtures;
import dev.fencepost.security.BearerTokenSource;
import dev.fencepost.security.FencepostRole;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Who may act on payouts and launch the reconciliation, and who is recorded as having done it (ADR
 * 0147): only an operator's token is served; the operator in the audit row and the event is the
 * token's subject, never a name in the body; a body naming someone else is refused and changes
 * nothing.
 */
class OperatorIdentityTest extends ReconciliationTestBase {

  static final String OPERATOR = LocalIdentity.clientId(FencepostRole.OPERATOR);

  @Test
  void onlyAnOperatorMayCancelAndARefusedCallChangesNothing() {
    Payout payout = pendingPayout();
    String cancel = base(payout) + "/cancel";
    List<Integer> refusals = new ArrayList<>();

    refusals.add(World.send("POST", cancel, "{\"reason\":\"no token\"}", null).statusCode());
    for (FencepostRole role : EnumSet.complementOf(EnumSet.of(FencepostRole.OPERATOR))) {
      refusals.add(
          World.send("POST", cancel, "{\"reason\":\"wrong role\"}", STACK.tokens(role))
              .statusCode());
    }

    assertThat(refusals).containsExactly(401, 403, 403, 403);
    assertThat(state(payout)).isEqualTo(PayoutState.PENDING);
    assertThat(operatorAuditRows(payout)).isZero();
    assertThat(events.named("reconciliation.operator_action")).isEmpty();
  }

  @Test
  void theRecordedOperatorIsTheTokensSubject() {
    Payout payout = pendingPayout();

    HttpResponse<String> done = cancelAsOperator(payout, "{\"reason\":\"customer withdrew\"}");

    assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
    assertThat(state(payout)).isEqualTo(PayoutState.ABANDONED);
    assertThat(operatorActors(payout)).containsExactly(OPERATOR);
    assertThat(events.named("reconciliation.operator_action"))
        .singleElement()
        .satisfies(event -> assertThat(event.get("operator")).isEqualTo(OPERATOR));
  }

  @Test
  void aBodyNamingAnotherOperatorIsRefusedAndChangesNothing() {
    Payout payout = pendingPayout();

    HttpResponse<String> refused =
        cancelAsOperator(payout, "{\"operator\":\"mallory\",\"reason\":\"blame someone else\"}");

    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
    assertThat(World.JSON.readTree(refused.body()).path("code").asString())
        .isEqualTo("INVALID_REQUEST");
    assertThat(state(payout)).isEqualTo(PayoutState.PENDING);
    assertThat(operatorAuditRows(payout)).isZero();
    assertThat(events.named("reconciliation.operator_action.operator_mismatch"))
        .singleElement()
        .satisfies(
            event -> {
              assertThat(event.get("operator")).isEqualTo(OPERATOR);
              assertThat(event.get("claimedOperator")).isEqualTo("mallory");
            });

    // Naming oneself is allowed: the name is the one the token carries.
    HttpResponse<String> named =
        cancelAsOperator(
            payout, "{\"operator\":\"" + OPERATOR + "\",\"reason\":\"customer withdrew\"}");
    assertThat(named.statusCode()).as(named.body()).isEqualTo(200);
    assertThat(operatorActors(payout)).containsExactly(OPERATOR);
  }

  @Test
  void onlyAnOperatorMayLaunchOrListTheReconciliation() {
    String jobs = management("/actuator/batchjobs/reconciliationJob");
    long executions = executions();
    BearerTokenSource reconciler = STACK.tokens(FencepostRole.RECONCILER);

    assertThat(World.send("POST", jobs, "{}", null).statusCode()).isEqualTo(401);
    assertThat(World.send("POST", jobs, "{}", reconciler).statusCode()).isEqualTo(403);
    assertThat(
            World.send("POST", jobs, "{}", STACK.tokens(FencepostRole.PAYOUT_WORKER)).statusCode())
        .isEqualTo(403);
    assertThat(World.send("GET", jobs, null, null).statusCode()).isEqualTo(401);
    assertThat(World.send("GET", jobs, null, reconciler).statusCode()).isEqualTo(403);

    assertThat(executions()).as("no refused launch created an execution").isEqualTo(executions);
  }

  private Payout pendingPayout() {
    PaydbFixtures fixtures = new PaydbFixtures(STACK.appPaydb.dataSource(), "identity-test");
    AccountId account =
        AccountId.of("acc-id-" + ProcessHandle.current().pid() + "-" + System.nanoTime() % 100000);
    fixtures.createAccount(account, 50_000);
    return fixtures.createPendingPayout(account, 1_000, "EUR", "ben-id");
  }

  /** The cancel action with {@code body}, under an operator's token. */
  private HttpResponse<String> cancelAsOperator(Payout payout, String body) {
    return World.send("POST", base(payout) + "/cancel", body, STACK.tokens(FencepostRole.OPERATOR));
  }

  private String base(Payout payout) {
    return payoutOps(payout.id());
  }

  private static PayoutState state(Payout payout) {
    return PayoutState.valueOf(
        paydb()
            .sql("SELECT state FROM payout WHERE id = :id")
            .param("id", payout.id().value())
            .query(String.class)
            .single());
  }

  private static long operatorAuditRows(Payout payout) {
    return operatorActors(payout).size();
  }

  private static List<String> operatorActors(Payout payout) {
    return paydb()
        .sql("SELECT actor_id FROM audit_event WHERE payout_id = :id AND actor_role = 'OPERATOR'")
        .param("id", payout.id().value())
        .query(String.class)
        .list();
  }

  private static long executions() {
    return JdbcClient.create(STACK.batchdb.dataSource())
        .sql("SELECT count(*) FROM batch_job_execution")
        .query(Long.class)
        .single();
  }

  private static JdbcClient paydb() {
    return JdbcClient.create(STACK.appPaydb.dataSource());
  }
}
