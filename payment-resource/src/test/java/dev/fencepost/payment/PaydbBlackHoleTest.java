package dev.fencepost.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.db.timeouts.DatabaseTimeoutsAutoConfiguration;
import dev.fencepost.payment.autoconfigure.PaydbAutoConfiguration;
import dev.fencepost.testsupport.network.BlackHole;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import dev.fencepost.testsupport.postgres.Sessions;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * paydb goes silent in the middle of a worker's fenced transaction: the claim has advanced the
 * account's fence (holding the account row's lock) when the proxy between the pool and PostgreSQL
 * stops forwarding, closing nothing. The pool is the one payment-resource's auto-configuration
 * builds, with the db module's timeouts. The call gives up within its bounds instead of blocking
 * the worker, paydb ends the orphaned transaction itself so the account row is free again, and
 * nothing of the half-done transaction remains: the one-statement fence and everything after it
 * roll back together (ADR 0155). Without {@code fencepost.db.timeouts.*} the worker hangs and the
 * account stays locked until the operating system notices the dead connection.
 *
 * <p>The bounds here are small (socket 4 s, idle in transaction 2 s); the awaits allow five times
 * as much, far less than a hang.
 */
@Tag("INV-01")
class PaydbBlackHoleTest {

  @RegisterExtension static EmbeddedPostgresExtension paydb = Paydb.extension();

  private static final Duration BOUND = Duration.ofSeconds(20);

  private BlackHole hole;
  private ApplicationContextRunner worker;
  private Payout pending;
  private long fenceBefore;

  @BeforeEach
  void aWorkerWhosePaydbPoolGoesThroughAProxy() {
    hole = BlackHole.inFrontOf(paydb.server().port());
    worker =
        new ApplicationContextRunner()
            .withConfiguration(
                AutoConfigurations.of(
                    DatabaseTimeoutsAutoConfiguration.class, PaydbAutoConfiguration.class))
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withPropertyValues(
                "fencepost.paydb.url=jdbc:postgresql://127.0.0.1:"
                    + hole.port()
                    + "/"
                    + paydb.database().name(),
                "fencepost.paydb.username=" + paydb.database().username(),
                "fencepost.paydb.password=" + paydb.database().password(),
                "fencepost.db.timeouts.connection-timeout=2s",
                "fencepost.db.timeouts.socket-timeout=4s",
                "fencepost.db.timeouts.statement-timeout=3s",
                "fencepost.db.timeouts.lock-timeout=3s",
                "fencepost.db.timeouts.idle-in-transaction-timeout=2s");
    Scenarios setup =
        new Scenarios(
            new PaymentResource(paydb.dataSource(), new SimpleMeterRegistry()),
            new PayoutIntake(paydb.dataSource(), "black-hole-test"));
    pending = setup.pending(setup.account(Scenarios.FUNDING), Scenarios.AMOUNT);
    fenceBefore = fence();
  }

  @AfterEach
  void stop() {
    hole.restore();
    hole.close();
  }

  @Test
  void aClaimWhosePaydbGoesSilentMidTransactionFailsInsteadOfBlockingTheWorker() {
    worker.run(
        context -> {
          CompletableFuture<Payout> claim =
              claimCutOffMidTransaction(context.getBean(PaymentResource.class));

          await().atMost(BOUND).until(claim::isDone);
          assertThat(claim).isCompletedExceptionally();
        });
  }

  @Test
  void theAccountRowIsFreedOnPaydbAndTheHalfDoneFencedWriteLeavesNothing() {
    worker.run(
        context -> {
          claimCutOffMidTransaction(context.getBean(PaymentResource.class));

          // A direct connection (not through the proxy), willing to wait a minute, gets the
          // account row the silenced transaction locked: paydb has ended that session on its own.
          CompletableFuture<Void> direct =
              Sessions.lockDirectly(paydb, Duration.ofSeconds(60), this::lockAccountRow);
          await().atMost(BOUND).until(direct::isDone);
          assertThat(direct).isCompleted();

          // Rolled back as a whole: neither the fence nor the payout moved.
          assertThat(fence()).isEqualTo(fenceBefore);
          assertThat(
                  JdbcClient.create(paydb.dataSource())
                      .sql("SELECT state FROM payout WHERE id = :id")
                      .param("id", pending.id().value())
                      .query(String.class)
                      .single())
              .isEqualTo("PENDING");
        });
  }

  /**
   * Starts a claim whose transaction paydb is executing (its fence statement waits for the account
   * row, which a direct transaction holds), then silences the proxy and lets the claim have the
   * row: paydb advances the fence, answers into the void, and the transaction sits open, the
   * account row locked, with a client that will never speak again.
   */
  private CompletableFuture<Payout> claimCutOffMidTransaction(PaymentResource resource)
      throws SQLException {
    try (Connection blocker = Sessions.direct(paydb)) {
      blocker.setAutoCommit(false);
      lockAccountRow(blocker);
      CompletableFuture<Payout> claim =
          CompletableFuture.supplyAsync(
              () -> resource.claim(pending.id(), Scenarios.SETUP_TOKEN, Scenarios.SETUP_WORKER));
      await().atMost(BOUND).until(() -> Sessions.aSessionWaitsForARowLock(paydb.dataSource()));
      hole.swallow();
      blocker.commit();
      return claim;
    }
  }

  private long fence() {
    return JdbcClient.create(paydb.dataSource())
        .sql("SELECT fence FROM account WHERE id = :id")
        .param("id", pending.accountId().value())
        .query(Long.class)
        .single();
  }

  private void lockAccountRow(Connection c) throws SQLException {
    Sessions.lockRow(
        c, "SELECT 1 FROM account WHERE id = ? FOR UPDATE", pending.accountId().value());
  }
}
