package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.lock.FencingToken;
import dev.fencepost.payment.Actor;
import dev.fencepost.payment.PaymentResource;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payment.testkit.PaydbFixtures;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.batch.core.scope.context.ChunkContext;
import org.springframework.batch.infrastructure.repeat.RepeatContext;
import org.springframework.batch.infrastructure.repeat.RepeatStatus;

/**
 * The reader's side of chunks of several payouts (ADR 0207), on a real paydb of its own: only a
 * chunk's first read may wait, the chunk's later candidates come from a prefetch that never waits,
 * and a chunk that ends hands back what it took. Each rule is what keeps a payout thread from
 * waiting for its own accounts, or keeping them from the other threads, for ever.
 */
@Tag("A-15")
class ChunkedCandidatesTest {

  private static final Duration NEVER = Duration.ofSeconds(20);

  @RegisterExtension
  static EmbeddedPostgresExtension server = EmbeddedPostgresExtension.withChangelog(null);

  private PostgresDatabase db;
  private PaydbFixtures fixtures;
  private PaymentResource paydb;
  private PayoutCandidateReader reader;

  @BeforeEach
  void freshPaydb() {
    db =
        server
            .server()
            .createDatabase("chunks")
            .applyChangelog("db/changelog/paydb/db.changelog-master.yaml");
    fixtures = new PaydbFixtures(db.dataSource(), "chunks-test");
    paydb = new PaymentResource(db.dataSource(), new SimpleMeterRegistry());
    reader = new PayoutCandidateReader(paydb, 100, 3);
  }

  @AfterEach
  void closePaydb() {
    db.close();
  }

  @Test
  void aThreadHoldingItsAccountsCandidateIsNotMadeToWaitForItsNextPayout() {
    List<Payout> payouts = fixtures.accountWithPayouts("own", 10_000, 2, 100);

    assertTimeoutPreemptively(
        NEVER,
        () -> {
          assertThat(reader.read()).isEqualTo(payouts.get(0));
          // The account's second payout becomes a candidate only when the first attempt ends, and
          // this thread is the one that would end it: prefetch says "none ready", the chunk ends.
          assertThat(reader.prefetch()).isFalse();
        });
  }

  @Test
  void aChunkGathersReadyCandidatesOfDistinctAccountsThenEndsWhenNoneIsReady() {
    Payout first = fixtures.accountWithPayouts("a", 10_000, 1, 100).get(0);
    Payout second = fixtures.accountWithPayouts("b", 10_000, 1, 100).get(0);
    Payout third = fixtures.accountWithPayouts("c", 10_000, 1, 100).get(0);
    ReadyCandidatesPolicy chunk = new ReadyCandidatesPolicy(reader, 10);
    RepeatContext context = chunk.start(null);

    List<Payout> taken =
        assertTimeoutPreemptively(
            NEVER,
            () -> {
              List<Payout> read = new ArrayList<>();
              do {
                chunk.update(context);
                read.add(reader.read());
              } while (!chunk.isComplete(context, RepeatStatus.CONTINUABLE));
              return read;
            });

    assertThat(taken).containsExactlyInAnyOrder(first, second, third);
  }

  @Test
  void aChunkEndsAtItsCommitIntervalWithoutTakingMore() {
    for (int i = 0; i < 3; i++) {
      fixtures.accountWithPayouts("n" + i, 10_000, 1, 100);
    }
    ReadyCandidatesPolicy chunk = new ReadyCandidatesPolicy(reader, 2);
    RepeatContext context = chunk.start(null);

    List<Boolean> completeAfterEachRead =
        assertTimeoutPreemptively(
            NEVER,
            () -> {
              chunk.update(context);
              reader.read();
              boolean afterOne = chunk.isComplete(context, RepeatStatus.CONTINUABLE);
              chunk.update(context);
              reader.read();
              return List.of(afterOne, chunk.isComplete(context, RepeatStatus.CONTINUABLE));
            });

    assertThat(completeAfterEachRead).containsExactly(false, true);
    // The third account was not taken: another thread may have it at once.
    Payout other = assertTimeoutPreemptively(NEVER, () -> onAnotherThread(reader::read));
    assertThat(other).isNotNull();
  }

  @Test
  void aFailedChunkHandsItsAccountsBackToAThreadWaitingForThem() throws Exception {
    Payout only = fixtures.accountWithPayouts("failed", 10_000, 1, 100).get(0);
    assertThat(reader.read()).isEqualTo(only);

    // Another payout thread finds nothing it may take while this one holds the account: it waits.
    WaitingReader other = WaitingReader.start(reader);

    reader.afterChunkError(null); // this thread's chunk failed before it executed the payout

    assertThat(other.got()).as("the failed chunk's account").isEqualTo(only);
  }

  @Test
  void aGrantRunOfAThreadHoldingUnreachedCandidatesEndsWhileAnotherThreadWaitsForWork()
      throws Exception {
    fixtures.accountWithPayouts("x", 10_000, 2, 100);
    fixtures.accountWithPayouts("y", 10_000, 1, 100);
    reader.read();
    assertThat(reader.prefetch()).isTrue();
    assertThat(reader.grantMayGoOn()).as("no other thread waits yet").isTrue();

    WaitingReader other = WaitingReader.start(reader);

    assertThat(reader.grantMayGoOn()).as("another thread waits for work (ADR 0237)").isFalse();
    reader.afterChunkError(null);
    other.got();
  }

  @Test
  void aGrantRunOfAThreadHoldingNothingElseGoesOnWhileAnotherThreadWaits() throws Exception {
    fixtures.accountWithPayouts("alone", 10_000, 2, 100);
    reader.read();
    assertThat(reader.prefetch()).isFalse();

    WaitingReader other = WaitingReader.start(reader);

    assertThat(reader.grantMayGoOn())
        .as("giving the account up would only move its payouts to another thread")
        .isTrue();
    reader.afterChunkError(null);
    other.got();
  }

  @Test
  void aPrefetchedCandidateNeverReadIsHandedBackWhenTheChunkEnds() throws Exception {
    Payout a = fixtures.accountWithPayouts("p", 10_000, 1, 100).get(0);
    Payout b = fixtures.accountWithPayouts("q", 10_000, 1, 100).get(0);
    Payout first = reader.read();
    assertThat(reader.prefetch()).isTrue();
    reader.done(first);

    reader.afterChunkError(null);

    // Both accounts are free again: another thread may take the one this thread never executed.
    List<Payout> again =
        assertTimeoutPreemptively(
            NEVER,
            () ->
                onAnotherThread(
                    () -> {
                      Payout x = reader.read();
                      reader.done(x);
                      Payout y = reader.read();
                      reader.done(y);
                      return List.of(x, y);
                    }));
    assertThat(again).containsExactlyInAnyOrder(a, b);
  }

  @Test
  void aCandidatesGrantMayCarryNoMoreThanItsPageCountedOnItsAccount() throws Exception {
    Payout pair = fixtures.accountWithPayouts("pair", 10_000, 2, 100).get(0);
    Payout claimed = fixtures.accountWithPayouts("claimed", 10_000, 1, 100).get(0);
    paydb.claim(claimed.id(), FencingToken.of(1), Actor.worker("a-crashed-worker"));
    Payout first = reader.read();
    assertThat(reader.prefetch()).isTrue();
    Payout second = reader.read();
    Payout recovery = first.accountId().equals(claimed.accountId()) ? first : second;
    Payout pending = recovery == first ? second : first;
    assertThat(pending.id()).isEqualTo(pair.id());

    assertThat(reader.payoutsForGrant(pending, 10)).as("the two the page counted").isEqualTo(2);
    assertThat(reader.payoutsForGrant(pending, 1)).as("the bound, when lower").isEqualTo(1);
    assertThat(reader.payoutsForGrant(recovery, 10))
        .as("a recovery candidate: its page counted nothing")
        .isEqualTo(10);
    reader.done(pending);
    assertThat(reader.payoutsForGrant(pending, 10)).as("forgotten once done").isEqualTo(10);
  }

  @Test
  void aPrefetchedCandidateIsCheckedAgainWhenItsTurnComes() throws Exception {
    fixtures.accountWithPayouts("turn", 10_000, 1, 100);
    fixtures.accountWithPayouts("moved", 10_000, 1, 100);
    Payout first = reader.read();
    assertThat(reader.prefetch()).isTrue();
    Payout second = reader.read();

    // Another worker claims the second while this chunk executes the first.
    paydb.claim(second.id(), FencingToken.of(1), Actor.worker("another-worker"));

    assertThat(reader.turnCame(first)).isTrue();
    assertThat(reader.turnCame(second)).isFalse();
  }

  @Test
  void aQueuedCandidateThatMovedOnBeforeItsChunkStartedIsNotReadAtAll() throws Exception {
    Payout moved = fixtures.accountWithPayouts("gone", 10_000, 1, 100).get(0);
    Payout kept = fixtures.accountWithPayouts("kept", 10_000, 1, 100).get(0);
    Payout first = reader.read(); // the refill queued both; this chunk takes one
    reader.done(first);
    reader.afterChunk((ChunkContext) null);
    Payout queued = first.equals(moved) ? kept : moved;
    paydb.claim(queued.id(), FencingToken.of(1), Actor.worker("another-worker"));

    List<Payout> rest = new ArrayList<>();
    for (Payout next = reader.read(); next != null; next = reader.read()) {
      rest.add(next);
      reader.done(next);
      reader.afterChunk((ChunkContext) null);
    }

    // A later query offers it again as CLAIMED (recovery's candidate), never in its old state.
    assertThat(rest)
        .as("read after the claim")
        .noneMatch(p -> p.id().equals(queued.id()) && p.state() == PayoutState.PENDING);
  }

  @Test
  void readingAgainWhileHoldingUnexecutedCandidatesIsRefusedAsADefect() throws Exception {
    fixtures.accountWithPayouts("x", 10_000, 1, 100);
    fixtures.accountWithPayouts("y", 10_000, 1, 100);
    reader.read();

    assertThatThrownBy(reader::read)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("prefetch");
  }

  @Test
  void aCommitIntervalBelowOneIsRefused() {
    assertThatThrownBy(() -> new ReadyCandidatesPolicy(reader, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("commitInterval");
    PayoutJobProperties properties = new PayoutJobProperties();
    assertThatThrownBy(() -> properties.setCommitInterval(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fencepost.payout.commit-interval");
    assertThatThrownBy(() -> properties.setCommitInterval(1001))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fencepost.payout.commit-interval");
    assertThat(properties.getCommitInterval()).isEqualTo(10);
  }

  private interface Read<T> {
    T read() throws InterruptedException;
  }

  private static <T> T onAnotherThread(Read<T> read) throws Exception {
    return CompletableFuture.supplyAsync(
            () -> {
              try {
                return read.read();
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            })
        .get(NEVER.toSeconds(), TimeUnit.SECONDS);
  }
}
