package dev.fencepost.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.payment.impl.BalanceSlots;
import dev.fencepost.payment.impl.Ledger;
import dev.fencepost.payment.impl.PaymentSignals;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * ADR 0193: the system accounts' side of every movement goes to one of their balance slots, so
 * postings of different payouts do not wait for each other on one row, and every balance that is
 * read or checked is the account row's base plus its slots, which INV-03 still equates with the
 * ledger.
 */
@Tag("INV-03")
@Tag("FR-25")
class BalanceSlotsTest {

  @RegisterExtension static PaymentFixture fx = PaymentFixture.withLoader("slots");

  static final FencingToken TOKEN = FencingToken.of(42);
  static final Actor WORKER = Actor.worker("w-slots");
  static final Duration BOUND = Duration.ofSeconds(30);

  @Test
  void aPostingCreditsTheClearingSlotOfItsPayoutAndAFundingDebitsTheSourceSlotOfItsAccount() {
    Payout acked = ackedOnSlot(3);
    Map<Integer, Long> clearing = slots(AccountId.PAYOUT_CLEARING);

    fx.resource().post(acked.id(), TOKEN, WORKER);

    Map<Integer, Long> expected = new HashMap<>(clearing);
    expected.merge(3, Scenarios.AMOUNT, Long::sum);
    assertThat(slots(AccountId.PAYOUT_CLEARING)).isEqualTo(expected);

    AccountId funded = AccountId.of("acc-slots-funded");
    int slot = BalanceSlots.ofFundedAccount(funded);
    Map<Integer, Long> source = slots(AccountId.FUNDING_SOURCE);
    new PayoutIntake(fx.dataSource(), "slots").createAccount(funded, 700);

    expected = new HashMap<>(source);
    expected.merge(slot, -700L, Long::sum);
    assertThat(slots(AccountId.FUNDING_SOURCE)).isEqualTo(expected);
  }

  @Test
  void postingsOfPayoutsOnDifferentSlotsDoNotWaitForEachOther() throws Exception {
    Payout held = ackedOnSlot(1);
    Payout other = ackedOnSlot(2);

    try (HeldPosting posting = new HeldPosting(held)) {
      CompletableFuture<Payout> second = postInTheBackground(other);

      await().atMost(BOUND).until(() -> second.isDone() || !waitingForALock().isEmpty());
      assertThat(waitingForALock()).isEmpty();
      assertThat(second.get(BOUND.toSeconds(), TimeUnit.SECONDS).state())
          .isEqualTo(PayoutState.POSTED);
    }
  }

  /**
   * The control of the test above: the posting held open does hold its slot, and a posting of
   * another account that lands on the same slot waits for it, on that slot's row.
   */
  @Test
  void negativeControlPostingsForcedOntoOneSlotDoWaitForEachOther() throws Exception {
    Payout held = ackedOnSlot(5);
    Payout other = ackedOnSlot(5);
    CompletableFuture<Payout> second;

    try (HeldPosting posting = new HeldPosting(held)) {
      second = postInTheBackground(other);

      await().atMost(BOUND).until(() -> !waitingForALock().isEmpty());
      assertThat(waitingForALock()).singleElement().asString().contains("account_balance_slot");
      assertThat(second).isNotDone();
    }

    assertThat(second.get(BOUND.toSeconds(), TimeUnit.SECONDS).state())
        .isEqualTo(PayoutState.POSTED);
  }

  @Test
  void theWholeBalanceOfEachSystemAccountIsItsLedgerSumAfterManyConcurrentMovements()
      throws Exception {
    List<Payout> acked = new ArrayList<>();
    for (int i = 0; i < 24; i++) {
      acked.add(fx.scenarios().payoutIn(PayoutState.RAIL_ACKED));
    }
    List<Map<String, Object>> systemRowsBefore = systemAccountRows();

    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> work = new ArrayList<>();
      for (Payout payout : acked) {
        work.add(threads.submit(() -> fx.resource().post(payout.id(), TOKEN, WORKER)));
      }
      for (int i = 0; i < 16; i++) {
        work.add(threads.submit(() -> fx.scenarios().account(1_000)));
      }
      for (Future<?> done : work) {
        done.get(BOUND.toSeconds(), TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }

    for (AccountId system : List.of(AccountId.PAYOUT_CLEARING, AccountId.FUNDING_SOURCE)) {
      long entries = entrySum(system);
      assertThat(fx.paydb().balance(system)).as(system.value()).isEqualTo(entries);
      assertThat(fx.resource().account(system).balanceMinor())
          .as(system.value())
          .isEqualTo(entries);
      assertThat(fx.resource().ledgerAudit().driftOf(system)).isEmpty();
    }
    assertThat(slots(AccountId.PAYOUT_CLEARING).values().stream().filter(b -> b != 0).count())
        .as("clearing slots holding money")
        .isGreaterThan(1);
    assertThat(systemAccountRows()).as("the system accounts' rows").isEqualTo(systemRowsBefore);
    LedgerAudit.Report report = fx.resource().ledgerAudit().check(1_000);
    assertThat(report.globalSum()).isZero();
    assertThat(report.clean()).isTrue();
  }

  @Test
  void ledgerAuditReportsADriftWrittenIntoASlotAndNoneForACleanLedger() {
    fx.resource().post(fx.scenarios().payoutIn(PayoutState.RAIL_ACKED).id(), TOKEN, WORKER);
    assertThat(fx.resource().ledgerAudit().check(1_000).clean()).isTrue();
    assertThat(fx.resource().ledgerAudit().driftOf(AccountId.PAYOUT_CLEARING)).isEmpty();
    long entries = entrySum(AccountId.PAYOUT_CLEARING);

    // Outside the ledger, as an owner's session would: one slot of payout-clearing moves by 7.
    execute(
        "UPDATE account_balance_slot SET balance_minor = balance_minor + 7"
            + " WHERE account_id = 'payout-clearing' AND slot = 11");
    try {
      assertThat(fx.resource().ledgerAudit().driftOf(AccountId.PAYOUT_CLEARING))
          .hasValueSatisfying(
              d -> {
                assertThat(d.balanceMinor()).isEqualTo(entries + 7);
                assertThat(d.ledgerSum()).isEqualTo(entries);
              });
      LedgerAudit.Report report = fx.resource().ledgerAudit().check(1_000);
      assertThat(report.clean()).isFalse();
      assertThat(report.balanceDrifts())
          .singleElement()
          .satisfies(d -> assertThat(d.accountId()).isEqualTo(AccountId.PAYOUT_CLEARING));
    } finally {
      // The correction of runbooks/ledger-imbalance.md, as paydb's owner: into the base.
      execute(
          "UPDATE account SET balance_minor = (SELECT coalesce(sum(signed_amount), 0) FROM"
              + " ledger_entry WHERE account_id = 'payout-clearing') - (SELECT"
              + " coalesce(sum(balance_minor), 0) FROM account_balance_slot WHERE"
              + " account_id = 'payout-clearing') WHERE id = 'payout-clearing'");
    }
    assertThat(fx.resource().ledgerAudit().check(1_000).clean()).isTrue();
    assertThat(fx.resource().account(AccountId.PAYOUT_CLEARING).balanceMinor()).isEqualTo(entries);
  }

  @Test
  void aMissingSlotMakesThePostingFailAndChangeNothingAndTheResourceRefusesToStart() {
    Payout acked = ackedOnSlot(9);
    long slotBalance = slots(AccountId.PAYOUT_CLEARING).get(9);
    execute(
        "ALTER TABLE account_balance_slot DISABLE TRIGGER account_balance_slot_never_deleted;"
            + "DELETE FROM account_balance_slot WHERE account_id = 'payout-clearing' AND slot = 9;"
            + "ALTER TABLE account_balance_slot ENABLE TRIGGER account_balance_slot_never_deleted");
    try {
      var before = fx.paydb().snapshot();

      assertThatThrownBy(() -> fx.resource().post(acked.id(), TOKEN, WORKER))
          .isInstanceOf(LedgerImbalanceException.class)
          .hasMessageContaining("balance slot 9 of payout-clearing does not exist");

      assertThat(fx.paydb().snapshot()).isEqualTo(before);
      assertThat(fx.resource().findPayout(acked.id()).orElseThrow().state())
          .isEqualTo(PayoutState.RAIL_ACKED);
      assertThat(fx.events().named("ledger.assertion_failed"))
          .singleElement()
          .satisfies(e -> assertThat(e.get("check")).isEqualTo("account_balance"));
      assertThatThrownBy(() -> new PaymentResource(fx.dataSource(), new SimpleMeterRegistry()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("lacks 1 of the 16 balance slots of payout-clearing");
    } finally {
      execute(
          "INSERT INTO account_balance_slot (account_id, slot, balance_minor)"
              + " VALUES ('payout-clearing', 9, "
              + slotBalance
              + ")");
    }
    assertThat(fx.resource().post(acked.id(), TOKEN, WORKER).state()).isEqualTo(PayoutState.POSTED);
  }

  /**
   * A payout in RAIL_ACKED, on an account of its own, whose posting lands on {@code slot} of
   * payout-clearing.
   */
  private static Payout ackedOnSlot(int slot) {
    for (int tries = 0; tries < 10_000; tries++) {
      PayoutId id = PayoutId.random();
      if (BalanceSlots.ofPayout(id) == slot) {
        return fx.scenarios()
            .payoutIn(PayoutState.RAIL_ACKED, fx.scenarios().account(Scenarios.FUNDING), id);
      }
    }
    throw new AssertionError("no payout id of 10,000 lands on slot " + slot);
  }

  private static CompletableFuture<Payout> postInTheBackground(Payout payout) {
    return CompletableFuture.supplyAsync(() -> fx.resource().post(payout.id(), TOKEN, WORKER));
  }

  /** The statements of this test's database that wait for a lock another transaction holds. */
  private static List<String> waitingForALock() {
    return fx.paydb()
        .jdbc()
        .sql(
            "SELECT query FROM pg_stat_activity"
                + " WHERE datname = current_database() AND wait_event_type = 'Lock'")
        .query(String.class)
        .list();
  }

  private static Map<Integer, Long> slots(AccountId account) {
    return fx
        .paydb()
        .jdbc()
        .sql("SELECT slot, balance_minor FROM account_balance_slot WHERE account_id = :a")
        .param("a", account.value())
        .query((rs, row) -> Map.entry(rs.getInt(1), rs.getLong(2)))
        .list()
        .stream()
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
  }

  private static long entrySum(AccountId account) {
    return fx.paydb()
        .jdbc()
        .sql("SELECT coalesce(sum(signed_amount), 0) FROM ledger_entry WHERE account_id = :a")
        .param("a", account.value())
        .query(Long.class)
        .single();
  }

  private static List<Map<String, Object>> systemAccountRows() {
    return fx.paydb()
        .jdbc()
        .sql("SELECT * FROM account WHERE kind <> 'CUSTOMER' ORDER BY id")
        .query()
        .listOfRows();
  }

  private static void execute(String sql) {
    try (Connection c = fx.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }

  /**
   * A real posting (the library's {@link Ledger}) in a transaction left open, holding the rows it
   * wrote, until it is closed and rolls back.
   */
  private static final class HeldPosting implements AutoCloseable {

    private final Connection connection;

    HeldPosting(Payout payout) throws SQLException {
      connection = fx.dataSource().getConnection();
      try {
        connection.setAutoCommit(false);
        JdbcClient jdbc = JdbcClient.create(new SingleConnectionDataSource(connection, true));
        new Ledger(jdbc, new PaymentSignals(new SimpleMeterRegistry()))
            .postPayout(payout, TOKEN, "held-open");
      } catch (RuntimeException | SQLException e) {
        close();
        throw e;
      }
    }

    @Override
    public void close() throws SQLException {
      try {
        connection.rollback();
        connection.setAutoCommit(true);
      } finally {
        connection.close();
      }
    }
  }
}
