package dev.fencepost.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.lock.FencingToken;
import dev.fencepost.testsupport.postgres.CountingDataSource;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fence is one statement that PostgreSQL re-checks against the committed row when two holders
 * race, which it does only at READ COMMITTED (ADR 0036). Transactions take that level from the
 * connection, checked once, instead of asking the driver on every transaction, which costs a {@code
 * SHOW TRANSACTION ISOLATION LEVEL} round trip each time (ADR 0204). A paydb configured for another
 * level is refused before anything is written.
 */
@Tag("FR-15")
@Tag("INV-05")
class ReadCommittedTest {

  @RegisterExtension static EmbeddedPostgresExtension db = Paydb.extension();

  @Test
  void aPoolThatRunsTransactionsAtRepeatableReadIsRefusedAtStart() {
    try (HikariDataSource repeatableRead = pool("TRANSACTION_REPEATABLE_READ")) {
      assertThatThrownBy(() -> new PaymentResource(repeatableRead, new SimpleMeterRegistry()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("'repeatable read'")
          .hasMessageContaining("'read committed'");
    }
  }

  @Test
  void aDatabaseThatDefaultsToSerializableIsRefusedAndTheIntakeWritesNothing() {
    Paydb paydb = new Paydb(db.dataSource());
    long accountsBefore = paydb.count("account");
    long auditBefore = paydb.count("audit_event");
    String name = db.database().name();
    paydb
        .jdbc()
        .sql("ALTER DATABASE \"" + name + "\" SET default_transaction_isolation = 'serializable'")
        .update();
    try (HikariDataSource serializable = pool(null)) {
      assertThatThrownBy(() -> new PaymentResource(serializable, new SimpleMeterRegistry()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("'serializable'");
      // The intake builds without a query; its first transaction is refused before it starts.
      PayoutIntake intake = new PayoutIntake(serializable, "read-committed-test");
      assertThatThrownBy(() -> intake.createAccount(AccountId.of("acc-serializable"), 1_000))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("'serializable'");
    } finally {
      paydb
          .jdbc()
          .sql("ALTER DATABASE \"" + name + "\" RESET default_transaction_isolation")
          .update();
    }
    assertThat(paydb.count("account")).isEqualTo(accountsBefore);
    assertThat(paydb.count("audit_event")).isEqualTo(auditBefore);
  }

  @Test
  void noTransactionOfAPayoutAsksTheConnectionForItsIsolationLevel() {
    try (HikariDataSource pooled = pool(null)) {
      CountingDataSource calls = new CountingDataSource(pooled);
      PaymentResource resource = new PaymentResource(calls, new SimpleMeterRegistry());
      PayoutIntake intake = new PayoutIntake(calls, "read-committed-test");
      AccountId account = AccountId.of("acc-isolation-calls");
      intake.createAccount(account, 10_000);
      PayoutId id = intake.createPendingPayout(account, 2_500, "EUR", "bene-1").id();
      FencingToken token = FencingToken.of(42);
      Actor worker = Actor.worker("w-isolation");

      resource.claim(id, token, worker);
      resource.markSubmitted(id, token, worker);
      resource.recordRailAcked(id, token, worker, "R-isolation");
      Payout posted = resource.post(id, token, worker);

      assertThat(posted.state()).isEqualTo(PayoutState.POSTED);
      assertThat(calls.connections()).as("connections the payout's work took").isGreaterThan(5);
      assertThat(calls.isolationCalls())
          .as("isolation-level calls on those connections")
          .isEqualTo(Map.of());
    }
  }

  private static HikariDataSource pool(String isolation) {
    return Paydb.newPool(db, isolation);
  }
}
