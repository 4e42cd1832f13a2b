package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.PaymentResource;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payment.testkit.PaydbFixtures;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The step's processor lets a candidate's grant go on to its account's next payouts (ADR 0236) only
 * while that keeps no payout thread of the process idle (ADR 0237): a thread whose chunk holds
 * accounts it has not reached gives its account up to a thread waiting for work and moves on to
 * them; a thread holding nothing else goes on, since its account's payouts run one at a time
 * whichever thread runs them. On the real lock server, proxy and rail stub, with a paydb of its
 * own, so that the reader's pages hold this test's accounts and nothing else.
 */
@Tag("A-15")
@Tag("UC-01")
class GrantRunGivesWayTest extends OneWorkerTest {

  private PostgresDatabase paydb;
  private PaymentResource payments;
  private PaydbFixtures fixtures;
  private PayoutCandidateReader reader;
  private PayoutProcessor processor;

  @BeforeEach
  void paydbOfItsOwn() {
    paydb =
        EmbeddedPostgresServer.shared()
            .createDatabase("gives_way")
            .applyChangelog("db/changelog/paydb/db.changelog-master.yaml");
    payments = new PaymentResource(paydb.dataSource(), new SimpleMeterRegistry());
    fixtures = new PaydbFixtures(paydb.dataSource(), "grant-run-gives-way-test");
    reader = new PayoutCandidateReader(payments, 100, 3);
    PayoutExecutor executor = executorOver(payments, "w-gives-way");
    processor = new PayoutProcessor(reader, executor, new PayoutStepTally(), 10);
  }

  @AfterEach
  void closePaydb() {
    paydb.close();
  }

  @Test
  void aThreadHoldingAccountsItHasNotReachedGivesItsAccountToAThreadWaitingForWork()
      throws Exception {
    List<Payout> a = fixtures.accountWithPayouts("gives-a", 100_000, 3, 1_000);
    fixtures.accountWithPayouts("gives-b", 100_000, 1, 1_000);
    // This thread's chunk takes both accounts, its first read and a prefetch (ADR 0207).
    Payout first = reader.read();
    assertThat(reader.prefetch()).isTrue();
    List<Payout> chunk = List.of(first, reader.read());
    WaitingReader idle = WaitingReader.start(reader);

    PayoutResult result = processor.process(candidateOf(chunk, a.get(0).accountId()));

    assertThat(result.outcome()).isEqualTo(PayoutOutcome.POSTED);
    assertThat(idle.got())
        .as("the idle thread's candidate")
        .isEqualTo(payments.findPayout(a.get(1).id()).orElseThrow());
    assertThat(stateOf(a.get(1)))
        .as("not carried by the first grant")
        .isEqualTo(PayoutState.PENDING);
    assertThat(stateOf(a.get(2))).isEqualTo(PayoutState.PENDING);
  }

  @Test
  void aThreadHoldingOnlyItsAccountGoesOnUnderItsGrantWhileAnotherThreadWaits() throws Exception {
    List<Payout> a = fixtures.accountWithPayouts("goes-on", 100_000, 3, 1_000);
    Payout first = reader.read();
    assertThat(reader.prefetch()).as("nothing else is ready").isFalse();
    WaitingReader idle = WaitingReader.start(reader);

    processor.process(first);

    List<Payout> done = a.stream().map(p -> payments.findPayout(p.id()).orElseThrow()).toList();
    assertThat(done).extracting(Payout::state).containsOnly(PayoutState.POSTED);
    assertThat(done)
        .extracting(Payout::tokenStamp)
        .as("one grant")
        .containsOnly(done.get(0).tokenStamp());
    assertThat(idle.got()).as("nothing was left for the idle thread").isNull();
  }

  private PayoutState stateOf(Payout payout) {
    return payments.findPayout(payout.id()).orElseThrow().state();
  }

  private static Payout candidateOf(List<Payout> chunk, AccountId account) {
    return chunk.stream().filter(p -> p.accountId().equals(account)).findFirst().orElseThrow();
  }
}
