package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.payment.PaymentResource;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payment.testkit.PaydbFixtures;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A grant looks for no more of its account's payouts than the page that offered its candidate
 * counted (ADR 0238): a payout alone on its account, the usual case once a backlog is drained, ends
 * its grant without a read of paydb that could only find nothing, and a payout created after the
 * page is left for a later page and a grant of its own. On the real lock server, proxy and rail
 * stub, with a paydb of its own whose {@code nextPending} statements are counted.
 */
@Tag("A-15")
@Tag("UC-01")
class GrantRunBoundedByItsPageTest extends OneWorkerTest {

  private final AtomicInteger nextPendingReads = new AtomicInteger();
  private PostgresDatabase paydb;
  private PaymentResource payments;
  private PaydbFixtures fixtures;
  private PayoutCandidateReader reader;
  private PayoutProcessor processor;

  @BeforeEach
  void paydbOfItsOwn() {
    paydb =
        EmbeddedPostgresServer.shared()
            .createDatabase("page_bound")
            .applyChangelog("db/changelog/paydb/db.changelog-master.yaml");
    payments =
        new PaymentResource(
            PaydbStatements.counting(
                paydb.dataSource(), PaydbStatements.NEXT_PENDING, nextPendingReads),
            new SimpleMeterRegistry());
    fixtures = new PaydbFixtures(paydb.dataSource(), "grant-run-bounded-test");
    reader = new PayoutCandidateReader(payments, 100, 3);
    processor =
        new PayoutProcessor(
            reader, executorOver(payments, "w-page-bound"), new PayoutStepTally(), 10);
  }

  @AfterEach
  void closePaydb() {
    paydb.close();
  }

  @Test
  void aPayoutAloneOnItsAccountEndsItsGrantWithoutLookingForANextPayout() throws Exception {
    Payout alone = fixtures.accountWithPayouts("alone", 100_000, 1, 1_000).get(0);

    PayoutResult result = processor.process(reader.read());

    assertThat(result.outcome()).isEqualTo(PayoutOutcome.POSTED);
    assertThat(stateOf(alone)).isEqualTo(PayoutState.POSTED);
    assertThat(nextPendingReads).as("next-payout reads").hasValue(0);
  }

  @Test
  void aGrantLooksForNoMorePayoutsThanItsPageCounted() throws Exception {
    List<Payout> three = fixtures.accountWithPayouts("three", 100_000, 3, 1_000);

    processor.process(reader.read());

    List<Payout> done = three.stream().map(this::reload).toList();
    assertThat(done).extracting(Payout::state).containsOnly(PayoutState.POSTED);
    assertThat(done)
        .extracting(Payout::tokenStamp)
        .as("one grant")
        .containsOnly(done.get(0).tokenStamp());
    assertThat(nextPendingReads)
        .as("after the first and the second, not after the third")
        .hasValue(2);
  }

  @Test
  void aPayoutCreatedAfterItsAccountsPageIsLeftForALaterPageAndAGrantOfItsOwn() throws Exception {
    Payout first = fixtures.accountWithPayouts("late", 100_000, 1, 1_000).get(0);
    Payout candidate = reader.read();
    Payout late = fixtures.createPendingPayout(first.accountId(), 1_000, "EUR", "ben-late");

    processor.process(candidate);

    assertThat(stateOf(first)).isEqualTo(PayoutState.POSTED);
    assertThat(stateOf(late))
        .as("not looked for by the first grant")
        .isEqualTo(PayoutState.PENDING);
    assertThat(nextPendingReads).hasValue(0);
    Payout next = reader.read();
    assertThat(next).as("the later page's candidate").isEqualTo(reload(late));
    assertThat(processor.process(next).outcome()).isEqualTo(PayoutOutcome.POSTED);
    assertThat(reload(late).tokenStamp())
        .as("a grant of its own")
        .isGreaterThan(reload(first).tokenStamp());
  }

  private Payout reload(Payout payout) {
    return payments.findPayout(payout.id()).orElseThrow();
  }

  private PayoutState stateOf(Payout payout) {
    return reload(payout).state();
  }
}
