package dev.fencepost.payment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.lock.FencedOutException;
import dev.fencepost.lock.FencingToken;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * INV-01 and INV-05 under real concurrency: eight threads write to one account, each step under a
 * freshly minted token (a new grant), so tokens interleave arbitrarily between minting and commit.
 * Each thread drives its own payout, so the state machine cannot order them: only the account's
 * fence can. One thread is a deterministic stale holder: after minting, it waits until a newer
 * token has written, then writes (the UC-03 pause, without a sleep).
 *
 * <p>Afterwards: the fence never went down, the accepted writes in commit order carry
 * non-decreasing tokens (each was the highest so far), every stale attempt was fenced out and
 * counted, and the ledger balances. The negative control runs the same workload with the fence off
 * and shows the history check failing.
 */
@Tag("INV-01")
@Tag("INV-05")
class ConcurrentFencedWritesTest {

  @RegisterExtension static EmbeddedPostgresExtension db = Paydb.extension();

  static final int THREADS = 8;
  static final int ATTEMPTS_PER_WORKER = 12;
  static final int PAUSER_ATTEMPTS = 3;
  static final long AMOUNT = 100;
  static final long FUNDING = 1_000_000;
  static final Actor NEWER_HOLDER = Actor.worker("newer-holder");

  /** What one run observed. */
  record Run(
      List<Long> acceptedInCommitOrder,
      List<Long> fenceObservations,
      int accepted,
      int fencedOut,
      int illegal,
      double fencedOutCounter,
      AccountId account,
      PayoutState pauserPayoutState) {}

  @Test
  void interleavedTokensNeverLowerTheFenceAndOnlyTheHighestTokenSoFarEverWrites() throws Exception {
    Run run = runWorkload(FencingMode.ENFORCED);

    assertThat(History.nonDecreasing(run.fenceObservations())).isTrue();
    assertThat(History.nonDecreasing(run.acceptedInCommitOrder())).isTrue();
    assertThat(run.acceptedInCommitOrder()).hasSize(run.accepted());
    // The pauser is always stale; the others race. Every stale attempt was refused and counted.
    assertThat(run.fencedOut()).isGreaterThanOrEqualTo(PAUSER_ATTEMPTS);
    assertThat(run.pauserPayoutState()).isEqualTo(PayoutState.PENDING);
    assertThat(run.fencedOutCounter()).isEqualTo(run.fencedOut());
    assertThat(run.illegal()).isZero();
    assertThat(run.accepted()).isPositive();
    long fence = new Paydb(db.dataSource()).fence(run.account());
    assertThat(fence).isEqualTo(run.acceptedInCommitOrder().get(run.accepted() - 1));
    assertLedgerBalances(run.account());
  }

  @Test
  void negativeControlWithTheFenceOffTheSameWorkloadLandsStaleWrites() throws Exception {
    Run run = runWorkload(FencingMode.EXPERIMENT_DISABLED);

    // The pauser's stale writes landed: some accepted write carried a token below an earlier one.
    assertThat(run.pauserPayoutState()).isEqualTo(PayoutState.RAIL_ACKED);
    assertThat(History.nonDecreasing(run.acceptedInCommitOrder())).isFalse();
    assertThat(run.fencedOut()).isZero();
    // The fence column itself still only goes up (GREATEST); the predicate was the guard.
    assertThat(History.nonDecreasing(run.fenceObservations())).isTrue();
  }

  private Run runWorkload(FencingMode mode) throws Exception {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    PaymentResource resource =
        new PaymentResource(
            db.dataSource(), meters, PaymentResourceOptions.defaults().withFencingMode(mode));
    Scenarios scenarios = new Scenarios(resource, new PayoutIntake(db.dataSource(), "conc"));
    Paydb paydb = new Paydb(db.dataSource());
    AccountId account = scenarios.account(FUNDING);
    List<PayoutId> payouts = new ArrayList<>();
    for (int i = 0; i < THREADS; i++) {
      payouts.add(scenarios.pending(account, AMOUNT).id());
    }
    PayoutId takeover = scenarios.pending(account, AMOUNT).id();

    AtomicLong tokenSource = new AtomicLong(1_000);
    AtomicInteger accepted = new AtomicInteger();
    AtomicInteger fencedOut = new AtomicInteger();
    AtomicInteger illegal = new AtomicInteger();
    List<Long> fenceObservations = new ArrayList<>();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int w = 0; w < THREADS; w++) {
        boolean pauser = w == 0;
        PayoutId mine = payouts.get(w);
        Actor actor = Actor.worker("w" + w);
        workers.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < (pauser ? PAUSER_ATTEMPTS : ATTEMPTS_PER_WORKER); i++) {
                    FencingToken token = FencingToken.of(tokenSource.incrementAndGet());
                    if (pauser) {
                      // Frozen past its lease: a newer grant writes before this one thaws.
                      FencingToken newer = FencingToken.of(tokenSource.incrementAndGet());
                      PayoutEvent takeoverStep =
                          nextStep(resource.findPayout(takeover).orElseThrow().state());
                      try {
                        Events.invoke(resource, takeoverStep, takeover, newer, NEWER_HOLDER);
                        accepted.incrementAndGet();
                      } catch (FencedOutException e) {
                        fencedOut.incrementAndGet();
                      }
                    }
                    PayoutEvent step = nextStep(resource.findPayout(mine).orElseThrow().state());
                    if (step == null) {
                      break;
                    }
                    try {
                      Events.invoke(resource, step, mine, token, actor);
                      accepted.incrementAndGet();
                    } catch (FencedOutException e) {
                      fencedOut.incrementAndGet();
                    } catch (IllegalTransitionException e) {
                      illegal.incrementAndGet();
                    }
                    // Reads under one lock are totally ordered, so their values must be too.
                    synchronized (fenceObservations) {
                      fenceObservations.add(paydb.fence(account));
                    }
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> worker : workers) {
        worker.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    List<Long> auditTokens =
        paydb
            .jdbc()
            .sql(
                "SELECT fencing_token FROM audit_event"
                    + " WHERE account_id = :a AND actor_role = 'WORKER' ORDER BY id")
            .param("a", account.value())
            .query(Long.class)
            .list();
    double counter = meters.get("fencepost.fence.rejections").counter().count();
    System.out.printf(
        "%s: accepted %d, fenced out %d, illegal %d, fence observations %d%n",
        mode, accepted.get(), fencedOut.get(), illegal.get(), fenceObservations.size());
    return new Run(
        auditTokens,
        List.copyOf(fenceObservations),
        accepted.get(),
        fencedOut.get(),
        illegal.get(),
        counter,
        account,
        resource.findPayout(payouts.get(0)).orElseThrow().state());
  }

  private static PayoutEvent nextStep(PayoutState state) {
    return switch (state) {
      case PENDING -> PayoutEvent.CLAIM;
      case CLAIMED -> PayoutEvent.SUBMIT_ACCEPTED;
      case RAIL_SUBMITTED -> PayoutEvent.RAIL_ACKED;
      case RAIL_ACKED -> PayoutEvent.POST;
      default -> null;
    };
  }

  private static void assertLedgerBalances(AccountId account) {
    LedgerAudit ledger = new LedgerAudit(db.dataSource());
    assertThat(ledger.check(10).clean()).isTrue();
    assertThat(ledger.driftOf(account)).isEmpty();
    Paydb paydb = new Paydb(db.dataSource());
    long posted =
        paydb
            .jdbc()
            .sql("SELECT count(*) FROM payout WHERE account_id = :a AND state = 'POSTED'")
            .param("a", account.value())
            .query(Long.class)
            .single();
    assertThat(paydb.balance(account)).isEqualTo(FUNDING - posted * AMOUNT);
  }
}
