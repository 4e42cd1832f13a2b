package dev.fencepost.payment;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.lock.FencingToken;
import dev.fencepost.testsupport.postgres.CountingDataSource;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a payout asks of paydb, statement by statement (ADR 0204). Every statement is a round trip
 * that both the worker and PostgreSQL pay for, and a payout makes four fenced transitions, so a
 * statement added to the path is paid four times per payout (ADR 0216 took out six; ADR 0219 makes
 * the last three one transaction with one fence advance). These counts are the budget: a change
 * that adds one fails here and has to say why.
 */
class PayoutStatementsTest {

  @RegisterExtension static EmbeddedPostgresExtension db = Paydb.extension();

  private static HikariDataSource pool;
  private static CountingDataSource counted;
  private static PaymentResource resource;
  private static PayoutIntake intake;

  private static final FencingToken TOKEN = FencingToken.of(42);
  private static final Actor WORKER = Actor.worker("w-statements");

  @BeforeAll
  static void counting() {
    pool = Paydb.newPool(db, null);
    counted = new CountingDataSource(pool);
    resource = new PaymentResource(counted, new SimpleMeterRegistry());
    intake = new PayoutIntake(counted, "statements-test");
  }

  @AfterAll
  static void close() {
    pool.close();
  }

  @Test
  void aClaimReadsThePayoutAndTheFundsAndTheRailOutcomesAreTheFenceAndOneStatement() {
    PayoutId id = pendingPayout("acc-statements-1");

    List<String> claim = statementsOf(() -> resource.claim(id, TOKEN, WORKER));
    assertFencedTransition(claim);
    assertThat(claim).as("claim: the re-read and the funds check are its two reads").hasSize(4);
    assertThat(claim.get(1)).startsWith("SELECT").contains("FROM payout WHERE id = ?");
    assertThat(claim.get(2)).startsWith("SELECT").contains("FROM account a");

    List<String> submitted = statementsOf(() -> resource.markSubmitted(id, TOKEN, WORKER));
    assertFencedTransition(submitted);
    assertThat(submitted).as("ADR 0216: the update checks the from-state itself").hasSize(2);

    List<String> acked = statementsOf(() -> resource.recordRailAcked(id, TOKEN, WORKER, "R-1"));
    assertFencedTransition(acked);
    assertThat(acked).hasSize(2);
  }

  @Test
  void aClaimOfACandidateSeenPendingIsTheClaimsStatementsWithNoReadBeforeThem() {
    PayoutId id = pendingPayout("acc-statements-5");

    List<String> claim = statementsOf(() -> resource.claimIfPending(id, TOKEN, WORKER));

    assertFencedTransition(claim);
    assertThat(claim).as("ADR 0218: the claim's re-read is the worker's").hasSize(4);
    assertThat(claim.get(1)).startsWith("SELECT").contains("FROM payout WHERE id = ?");
  }

  @Test
  void aClaimThatFindsThePayoutMovedOnStopsAtItsReadAndLeavesNoAuditRow() {
    PayoutId id = pendingPayout("acc-statements-6");
    resource.claim(id, TOKEN, WORKER);
    Paydb paydb = new Paydb(pool);
    int auditRows = paydb.auditOf(id).size();

    List<String> found =
        statementsOf(() -> resource.claimIfPending(id, FencingToken.of(43), WORKER));

    assertThat(found).hasSize(2);
    assertThat(found.get(0)).startsWith("UPDATE account a").contains("a.fence <= ?");
    assertThat(found.get(1)).startsWith("SELECT").contains("FROM payout WHERE id = ?");
    assertThat(paydb.auditOf(id)).hasSize(auditRows);
  }

  @Test
  void thePostingAddsTheGroupBothLegsInOneStatementTheBalancesAndTheTwoLedgerChecks() {
    PayoutId id = pendingPayout("acc-statements-2");
    resource.claim(id, TOKEN, WORKER);
    resource.markSubmitted(id, TOKEN, WORKER);
    resource.recordRailAcked(id, TOKEN, WORKER, "R-2");

    List<String> post = statementsOf(() -> resource.post(id, TOKEN, WORKER));

    assertFencedTransition(post);
    assertThat(post.get(1)).startsWith("SELECT").contains("FROM payout WHERE id = ?");
    assertThat(post)
        .hasSize(9)
        .filteredOn(sql -> sql.startsWith("INSERT INTO ledger_entry"))
        .singleElement()
        .satisfies(sql -> assertThat(sql).contains("), ("));
  }

  @Test
  void aSettlementIsTheThreeStepsStatementsWithOneFenceAdvanceAndNoReadOfThePayout() {
    PayoutId id = pendingPayout("acc-statements-7");
    resource.claim(id, TOKEN, WORKER);

    List<String> settle = statementsOf(() -> resource.settle(id, TOKEN, WORKER, "R-7"));

    assertFencedTransition(settle);
    assertThat(settle)
        .as("ADR 0219: 13 statements in three transactions when made one at a time")
        .hasSize(10)
        .filteredOn(sql -> sql.startsWith("UPDATE account a") && sql.contains("a.fence <= ?"))
        .hasSize(1);
    assertThat(settle)
        .as("the posting takes the payout from the acknowledgement's own update")
        .noneMatch(sql -> sql.contains("FROM payout WHERE id = ?"));
    assertThat(settle).filteredOn(sql -> sql.startsWith("WITH moved AS")).hasSize(3);
  }

  @Test
  void aTransitionFromAnotherStateReadsThePayoutOnlyToRefuseAndLeavesNoAuditRow() {
    PayoutId id = pendingPayout("acc-statements-4");
    Paydb paydb = new Paydb(pool);
    int auditRows = paydb.auditOf(id).size();

    List<String> refused =
        statementsOf(
            () -> {
              try {
                return resource.markSubmitted(id, TOKEN, WORKER);
              } catch (IllegalTransitionException expected) {
                assertThat(expected.from()).isEqualTo(PayoutState.PENDING);
                assertThat(expected.refusal()).isEqualTo(PayoutTransitions.Refusal.NOT_IN_TABLE);
                return null;
              }
            });

    assertThat(refused).hasSize(3);
    assertThat(refused.get(1)).startsWith("WITH moved AS");
    assertThat(refused.get(2)).startsWith("SELECT").contains("FROM payout WHERE id = ?");
    assertThat(paydb.auditOf(id)).hasSize(auditRows);
    assertThat(resource.findPayout(id).orElseThrow().state()).isEqualTo(PayoutState.PENDING);
  }

  @Test
  void aFencedOutWriteSpendsOneStatementToSayByHowMuch() {
    PayoutId id = pendingPayout("acc-statements-3");
    resource.claim(id, FencingToken.of(50), WORKER);

    List<String> refused =
        statementsOf(
            () -> {
              try {
                return resource.markSubmitted(id, TOKEN, WORKER);
              } catch (dev.fencepost.lock.FencedOutException expected) {
                return null;
              }
            });

    assertThat(refused).hasSize(2);
    assertThat(refused.get(0)).startsWith("UPDATE account a").contains("a.fence <= ?");
    assertThat(refused.get(1)).startsWith("SELECT a.id, a.fence");
  }

  /**
   * Fence first, on the account the payout names, with no read before it; the move and its audit
   * row last, in one statement. Nothing asks the isolation level.
   */
  private static void assertFencedTransition(List<String> statements) {
    assertThat(statements.get(0))
        .as("the fence is the first statement")
        .startsWith("UPDATE account a")
        .contains("FROM payout p")
        .contains("a.fence <= ?");
    assertThat(statements.get(statements.size() - 1))
        .as("the move and its audit row are the last statement")
        .startsWith("WITH moved AS")
        .contains("UPDATE payout")
        .contains("INSERT INTO audit_event");
    assertThat(counted.isolationCalls()).isEmpty();
  }

  private static PayoutId pendingPayout(String account) {
    intake.createAccount(AccountId.of(account), 10_000);
    return intake.createPendingPayout(AccountId.of(account), 2_500, "EUR", "bene-1").id();
  }

  private static List<String> statementsOf(Supplier<?> call) {
    counted.reset();
    call.get();
    return counted.statements();
  }
}
