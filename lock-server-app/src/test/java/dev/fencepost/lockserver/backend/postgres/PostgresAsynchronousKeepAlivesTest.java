package dev.fencepost.lockserver.backend.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.lock.SessionId;
import dev.fencepost.lock.SessionInfo;
import dev.fencepost.lock.SessionNotFoundException;
import dev.fencepost.lockserver.backend.BackendUnavailableException;
import dev.fencepost.lockserver.service.LockService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * A keepalive stream's frame holds no thread while its statement runs (ADR 0229): {@code
 * keepAliveAsync} queues the keepalive and returns, a thread of the batcher's leads the statement
 * when no caller does, and each answer is told on that thread once the statement's place is free.
 * What the caller learns is what {@code keepAlive} would have returned or thrown.
 */
@Tag("FR-04")
class PostgresAsynchronousKeepAlivesTest {

  @RegisterExtension static PostgresBackendExtension lockdb = new PostgresBackendExtension();

  @AfterEach
  void restoreBatcher() {
    KeepAliveBatcher batcher = lockdb.backend().keepAliveBatcher();
    batcher.beforeStatement(() -> {});
    batcher.maxConcurrentStatements(KeepAliveBatcher.MAX_CONCURRENT_STATEMENTS);
    batcher.gatherWindow(PostgresBackendProperties.DEFAULT_KEEPALIVE_GATHER);
    batcher.maxBatch(KeepAliveBatcher.MAX_BATCH);
  }

  @Test
  void anAsynchronousKeepaliveReturnsBeforeItsStatementAndIsAnsweredOnABatcherThread()
      throws Exception {
    PostgresLockBackend backend = lockdb.backend();
    KeepAliveBatcher batcher = backend.keepAliveBatcher();
    SessionId session = backend.createSession("async", Duration.ofSeconds(20)).sessionId();
    CountDownLatch inStatement = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    batcher.beforeStatement(
        () -> {
          inStatement.countDown();
          awaitQuietly(release);
        });
    CompletableFuture<String> toldOn = new CompletableFuture<>();
    batcher.keepAliveAsync(
        UUID.fromString(session.value()),
        (result, failure) -> toldOn.complete(Thread.currentThread().getName()));

    CompletableFuture<SessionInfo> answer = backend.keepAliveAsync(session);

    // The callers are back while the statement is held: nothing of theirs waits on their thread.
    assertThat(inStatement.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(answer).isNotDone();
    assertThat(toldOn).isNotDone();
    release.countDown();
    SessionInfo info = answer.get(10, TimeUnit.SECONDS);
    assertThat(info.sessionId()).isEqualTo(session);
    assertThat(info.owner()).isEqualTo("async");
    assertThat(info.ttl()).isEqualTo(Duration.ofSeconds(20));
    assertThat(toldOn.get(10, TimeUnit.SECONDS)).startsWith("fencepost-keepalive-batch-");
  }

  @Test
  void asynchronousKeepalivesShareStatementsAndEachIsAnsweredOnce() throws Exception {
    PostgresLockBackend backend = lockdb.backend();
    KeepAliveBatcher batcher = backend.keepAliveBatcher();
    List<SessionId> sessions = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      sessions.add(backend.createSession("many-" + i, Duration.ofSeconds(30)).sessionId());
    }
    AtomicInteger told = new AtomicInteger();
    // One statement at a time, the first held until every keepalive is queued: those it did not
    // take share the next one, whatever the machine's speed.
    batcher.maxConcurrentStatements(1);
    CountDownLatch allQueued = new CountDownLatch(1);
    AtomicBoolean first = new AtomicBoolean(true);
    batcher.beforeStatement(
        () -> {
          if (first.compareAndSet(true, false)) {
            awaitQuietly(allQueued);
          }
        });
    long before = batcher.statements();

    List<CompletableFuture<SessionInfo>> answers = new ArrayList<>();
    for (SessionId s : sessions) {
      answers.add(
          backend.keepAliveAsync(s).whenComplete((info, failure) -> told.incrementAndGet()));
    }
    allQueued.countDown();

    for (int i = 0; i < sessions.size(); i++) {
      assertThat(answers.get(i).get(30, TimeUnit.SECONDS).sessionId()).isEqualTo(sessions.get(i));
    }
    assertThat(told).hasValue(sessions.size());
    // The held one, which took those queued while it gathered (all of them on a fast machine),
    // then all the others.
    assertThat(batcher.statements() - before).isBetween(1L, 2L);
    assertThat(batcher.queued()).isZero();
  }

  @Test
  void anAsynchronousKeepaliveOfADeadOrUnknownSessionFailsAsTheSynchronousOneThrows() {
    PostgresLockBackend backend = lockdb.backend();
    SessionId dead = backend.createSession("dead", Duration.ofSeconds(30)).sessionId();
    JdbcClient.create(lockdb.dataSource())
        .sql("UPDATE lock_session SET expires_at = now() - interval '1 second' WHERE id = :id")
        .param("id", UUID.fromString(dead.value()))
        .update();

    for (SessionId s :
        List.of(dead, SessionId.of(UUID.randomUUID().toString()), SessionId.of("not-a-uuid"))) {
      CompletableFuture<SessionInfo> answer = backend.keepAliveAsync(s);
      await().atMost(Duration.ofSeconds(10)).until(answer::isDone);
      assertThat(answer).isCompletedExceptionally();
      assertThat(failureOf(answer)).isInstanceOf(SessionNotFoundException.class);
    }
    // A dead session is not revived by being kept alive.
    assertThat(
            JdbcClient.create(lockdb.dataSource())
                .sql("SELECT expires_at < now() FROM lock_session WHERE id = :id")
                .param("id", UUID.fromString(dead.value()))
                .query(Boolean.class)
                .single())
        .isTrue();
  }

  @Test
  void aFailedStatementFailsEveryAsynchronousKeepaliveOfItsBatch() {
    PostgresLockBackend backend = lockdb.backend();
    KeepAliveBatcher batcher = backend.keepAliveBatcher();
    SessionId a = backend.createSession("a", Duration.ofSeconds(30)).sessionId();
    SessionId b = backend.createSession("b", Duration.ofSeconds(30)).sessionId();
    inOneBatchOfTwo(batcher);
    batcher.beforeStatement(
        () -> {
          throw new BackendUnavailableException("lockdb unreachable (test)", null);
        });

    CompletableFuture<SessionInfo> first = backend.keepAliveAsync(a);
    CompletableFuture<SessionInfo> second = backend.keepAliveAsync(b);

    await().atMost(Duration.ofSeconds(10)).until(() -> first.isDone() && second.isDone());
    assertThat(failureOf(first)).isInstanceOf(BackendUnavailableException.class);
    assertThat(failureOf(second)).isInstanceOf(BackendUnavailableException.class);
  }

  @Test
  void anAsynchronousKeepaliveQueuedBehindASynchronousLeaderIsLedOnceThatLeaderIsDone()
      throws Exception {
    // One statement at a time, held by a caller of keepAlive that leads it: the asynchronous
    // keepalive queued meanwhile has no thread waiting for it, and the leader leaves once its own
    // answer is in. Someone must still lead it, or it is never answered.
    PostgresLockBackend backend = lockdb.backend();
    KeepAliveBatcher batcher = backend.keepAliveBatcher();
    SessionId sync = backend.createSession("sync", Duration.ofSeconds(30)).sessionId();
    SessionId async = backend.createSession("async", Duration.ofSeconds(30)).sessionId();
    batcher.maxConcurrentStatements(1);
    batcher.gatherWindow(Duration.ZERO);
    CountDownLatch inStatement = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean first = new AtomicBoolean(true);
    batcher.beforeStatement(
        () -> {
          if (first.compareAndSet(true, false)) {
            inStatement.countDown();
            awaitQuietly(release);
          }
        });
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try {
      Future<SessionInfo> leader = caller.submit(() -> backend.keepAlive(sync));
      assertThat(inStatement.await(10, TimeUnit.SECONDS)).isTrue();
      CompletableFuture<SessionInfo> queued = backend.keepAliveAsync(async);
      await().atMost(Duration.ofSeconds(10)).until(() -> batcher.queued() == 1);

      release.countDown();

      assertThat(leader.get(10, TimeUnit.SECONDS).sessionId()).isEqualTo(sync);
      assertThat(queued.get(10, TimeUnit.SECONDS).sessionId()).isEqualTo(async);
    } finally {
      release.countDown();
      caller.shutdownNow();
    }
  }

  @Test
  void anAnswerSlowToBeToldHoldsNoStatementBack() throws Exception {
    // A stream whose client reads slowly makes its answer slow to write. With one statement at a
    // time, a batch whose answer is still being told must not keep the next statement from
    // running.
    PostgresLockBackend backend = lockdb.backend();
    KeepAliveBatcher batcher = backend.keepAliveBatcher();
    SessionId slow = backend.createSession("slow", Duration.ofSeconds(30)).sessionId();
    SessionId next = backend.createSession("next", Duration.ofSeconds(30)).sessionId();
    batcher.maxConcurrentStatements(1);
    batcher.gatherWindow(Duration.ZERO);
    CountDownLatch telling = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try {
      CompletableFuture<Boolean> slowAnswer = new CompletableFuture<>();
      batcher.keepAliveAsync(
          UUID.fromString(slow.value()),
          (result, failure) -> {
            telling.countDown();
            awaitQuietly(release);
            slowAnswer.complete(result.isPresent());
          });
      assertThat(telling.await(10, TimeUnit.SECONDS)).isTrue();

      CompletableFuture<SessionInfo> nextAnswer = backend.keepAliveAsync(next);
      assertThat(nextAnswer.get(10, TimeUnit.SECONDS).sessionId()).isEqualTo(next);
      SessionInfo viaSynchronous = backend.keepAlive(next);
      assertThat(viaSynchronous.sessionId()).isEqualTo(next);
      assertThat(slowAnswer).isNotDone();

      release.countDown();
      assertThat(slowAnswer.get(10, TimeUnit.SECONDS)).isTrue();
    } finally {
      release.countDown();
    }
  }

  @Test
  void anAnswerThatThrowsDoesNotKeepTheRestOfItsBatchFromTheirs() throws Exception {
    PostgresLockBackend backend = lockdb.backend();
    KeepAliveBatcher batcher = backend.keepAliveBatcher();
    SessionId a = backend.createSession("a", Duration.ofSeconds(30)).sessionId();
    SessionId b = backend.createSession("b", Duration.ofSeconds(30)).sessionId();
    inOneBatchOfTwo(batcher);
    AtomicInteger toldFirst = new AtomicInteger();
    CompletableFuture<Boolean> second = new CompletableFuture<>();

    // Told in the order queued: the first answer throws on the thread that tells it.
    batcher.keepAliveAsync(
        UUID.fromString(a.value()),
        (result, failure) -> {
          toldFirst.incrementAndGet();
          throw new IllegalStateException("an answer that fails (test)");
        });
    batcher.keepAliveAsync(
        UUID.fromString(b.value()), (result, failure) -> second.complete(result.isPresent()));

    assertThat(second.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(toldFirst).hasValue(1);
  }

  /** The next two keepalives share one statement: it gathers until the second is queued. */
  private static void inOneBatchOfTwo(KeepAliveBatcher batcher) {
    batcher.gatherWindow(Duration.ofSeconds(30));
    batcher.maxBatch(2);
  }

  private static RuntimeException failureOf(CompletableFuture<?> answer) {
    return LockService.unwrap(answer.handle((value, failure) -> failure).join());
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never released the statement");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
