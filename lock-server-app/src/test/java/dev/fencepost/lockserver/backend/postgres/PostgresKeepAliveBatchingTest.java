package dev.fencepost.lockserver.backend.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lock.SessionInfo;
import dev.fencepost.lock.SessionNotFoundException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Keepalives that arrive while a keepalive statement is running, or while the first of them waits
 * out its gather window, share one statement (ADRs 0094 and 0188), and coalescing changes nothing a
 * caller can see: every live session is extended by PostgreSQL's clock, and a dead or unknown one
 * is still told SESSION_NOT_FOUND.
 */
class PostgresKeepAliveBatchingTest {

  @RegisterExtension static PostgresBackendExtension lockdb = new PostgresBackendExtension();

  private static JdbcClient jdbc;

  @BeforeAll
  static void start() {
    jdbc = JdbcClient.create(lockdb.dataSource());
  }

  @Test
  void aKeepaliveRewritesItsSessionInPlaceWithoutAnIndexWrite() throws Exception {
    SessionId session = lockdb.backend().createSession("hot", Duration.ofSeconds(30)).sessionId();
    try (OpenTransaction tx = new OpenTransaction(lockdb.dataSource())) {
      long[] before = updateCounts(tx);
      List<UUID> extended =
          tx.sql()
              .sql(KeepAliveBatcher.EXTEND)
              .param("ids", "{" + session.value() + "}")
              .query((rs, n) -> rs.getObject("id", UUID.class))
              .list();
      long[] after = updateCounts(tx);

      assertThat(extended).containsExactly(UUID.fromString(session.value()));
      // A HOT update touches no index, so the dead row versions of 2,000 keepalives a second are
      // pruned from their page instead of piling up in the table's indexes (ADR 0211). With
      // expires_at indexed, no keepalive was HOT.
      assertThat(after[0] - before[0]).as("rows updated").isEqualTo(1);
      assertThat(after[1] - before[1]).as("of them HOT").isEqualTo(1);
    }
  }

  /**
   * This connection's not yet reported counts of {@code lock_session} rows updated and HOT-updated
   * (PostgreSQL reports them every so often, so they span earlier transactions too: only a
   * difference within one transaction means anything).
   */
  private static long[] updateCounts(OpenTransaction tx) {
    return tx.sql()
        .sql(
            """
            SELECT pg_stat_get_xact_tuples_updated('lock_session'::regclass) AS updated,
                   pg_stat_get_xact_tuples_hot_updated('lock_session'::regclass) AS hot
            """)
        .query((rs, n) -> new long[] {rs.getLong("updated"), rs.getLong("hot")})
        .single();
  }

  @Test
  void keepalivesQueuedBehindARunningStatementShareOneStatementAndEachGetsItsOwnAnswer()
      throws Exception {
    PostgresLockBackend backend = lockdb.backend();
    KeepAliveBatcher batcher = backend.keepAliveBatcher();
    List<SessionId> live = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      live.add(backend.createSession("owner-" + i, Duration.ofSeconds(30)).sessionId());
    }
    SessionId dead = backend.createSession("dead", Duration.ofSeconds(30)).sessionId();
    jdbc.sql("UPDATE lock_session SET expires_at = now() - interval '1 second' WHERE id = :id")
        .param("id", UUID.fromString(dead.value()))
        .update();
    SessionId unknown = SessionId.of(UUID.randomUUID().toString());
    Map<UUID, Timestamp> beatsBefore = lastHeartbeats();

    // One statement at a time, and the first one held back until every other keepalive has
    // queued behind it; all of those must then go out together in one more statement.
    batcher.maxConcurrentStatements(1);
    int followers = live.size() - 1 + 2;
    CountDownLatch leaderInStatement = new CountDownLatch(1);
    AtomicBoolean first = new AtomicBoolean(true);
    batcher.beforeStatement(
        () -> {
          if (first.compareAndSet(true, false)) {
            leaderInStatement.countDown();
            await().atMost(Duration.ofSeconds(30)).until(() -> batcher.queued() == followers);
          }
        });
    long statementsBefore = batcher.statements();
    ExecutorService pool = Executors.newFixedThreadPool(followers + 1);
    try {
      Future<SessionInfo> leader = pool.submit(() -> backend.keepAlive(live.get(0)));
      assertThat(leaderInStatement.await(30, TimeUnit.SECONDS)).isTrue();
      List<Future<SessionInfo>> others = new ArrayList<>();
      for (SessionId s : live.subList(1, live.size())) {
        others.add(pool.submit(() -> backend.keepAlive(s)));
      }
      Future<SessionInfo> deadAnswer = pool.submit(() -> backend.keepAlive(dead));
      Future<SessionInfo> unknownAnswer = pool.submit(() -> backend.keepAlive(unknown));

      List<SessionInfo> answers = new ArrayList<>();
      answers.add(leader.get(30, TimeUnit.SECONDS));
      for (Future<SessionInfo> f : others) {
        answers.add(f.get(30, TimeUnit.SECONDS));
      }
      for (int i = 0; i < live.size(); i++) {
        assertThat(answers.get(i).sessionId()).isEqualTo(live.get(i));
        assertThat(answers.get(i).owner()).isEqualTo("owner-" + i);
        assertThat(answers.get(i).ttl()).isEqualTo(Duration.ofSeconds(30));
      }
      assertThatThrownBy(() -> deadAnswer.get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(SessionNotFoundException.class);
      assertThatThrownBy(() -> unknownAnswer.get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(SessionNotFoundException.class);
    } finally {
      batcher.beforeStatement(() -> {});
      batcher.maxConcurrentStatements(KeepAliveBatcher.MAX_CONCURRENT_STATEMENTS);
      pool.shutdownNow();
    }

    assertThat(batcher.statements() - statementsBefore)
        .as("the leader's statement, then one for everything queued behind it")
        .isEqualTo(2);
    Map<UUID, Timestamp> beatsAfter = lastHeartbeats();
    for (SessionId s : live) {
      UUID id = UUID.fromString(s.value());
      assertThat(beatsAfter.get(id)).as("heartbeat of " + s).isNotNull();
      if (beatsBefore.get(id) != null) {
        assertThat(beatsAfter.get(id)).isAfterOrEqualTo(beatsBefore.get(id));
      }
    }
    assertThat(
            jdbc.sql("SELECT expires_at > now() FROM lock_session WHERE id = :id")
                .param("id", UUID.fromString(dead.value()))
                .query(Boolean.class)
                .single())
        .as("a dead session is not revived by sharing a statement with live ones")
        .isFalse();
  }

  @Test
  void keepalivesArrivingOneAfterAnotherWithinTheGatherWindowShareOneStatement() throws Exception {
    PostgresLockBackend backend = lockdb.backend();
    KeepAliveBatcher batcher = backend.keepAliveBatcher();
    List<SessionId> live = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      live.add(backend.createSession("spread-" + i, Duration.ofSeconds(30)).sessionId());
    }
    SessionId dead = backend.createSession("spread-dead", Duration.ofSeconds(30)).sessionId();
    jdbc.sql("UPDATE lock_session SET expires_at = now() - interval '1 second' WHERE id = :id")
        .param("id", UUID.fromString(dead.value()))
        .update();
    List<SessionId> all = new ArrayList<>(live);
    all.add(dead);

    // A window far longer than the test: only a full batch can end it, so one statement for all
    // five proves that each arrival joined the gathering leader instead of starting its own.
    batcher.gatherWindow(Duration.ofMinutes(5));
    batcher.maxBatch(all.size());
    long statementsBefore = batcher.statements();
    ExecutorService pool = Executors.newFixedThreadPool(all.size());
    try {
      List<Future<SessionInfo>> answers = new ArrayList<>();
      for (SessionId s : all) {
        int queuedBefore = answers.size();
        answers.add(pool.submit(() -> backend.keepAlive(s)));
        if (answers.size() < all.size()) {
          // The next one arrives only once this one waits in the queue: one after another. (The
          // last one fills the batch, which the leader takes at once.)
          await().atMost(Duration.ofSeconds(30)).until(() -> batcher.queued() == queuedBefore + 1);
        }
      }
      for (int i = 0; i < live.size(); i++) {
        SessionInfo info = answers.get(i).get(30, TimeUnit.SECONDS);
        assertThat(info.sessionId()).isEqualTo(live.get(i));
        assertThat(info.owner()).isEqualTo("spread-" + i);
      }
      Future<SessionInfo> deadAnswer = answers.get(live.size());
      assertThatThrownBy(() -> deadAnswer.get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(SessionNotFoundException.class);
    } finally {
      batcher.gatherWindow(PostgresBackendProperties.DEFAULT_KEEPALIVE_GATHER);
      batcher.maxBatch(KeepAliveBatcher.MAX_BATCH);
      pool.shutdownNow();
    }
    assertThat(batcher.statements() - statementsBefore).isEqualTo(1);
  }

  @Test
  void renewsOfOneSessionsLocksExtendItThroughOneSharedKeepaliveStatement() throws Exception {
    // A payout worker's threads share one session (ADR 0063): their renews used to be one UPDATE
    // of its row each, queued on it; they now join the keepalive statement (ADR 0194).
    PostgresLockBackend backend = lockdb.backend();
    KeepAliveBatcher batcher = backend.keepAliveBatcher();
    SessionId worker = backend.createSession("worker", Duration.ofSeconds(30)).sessionId();
    List<LockGrant> grants = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      grants.add(
          backend.acquire(LockKey.of("renewed:" + UUID.randomUUID()), worker, Duration.ZERO));
    }
    Instant dbNowBefore = jdbc.sql("SELECT now()").query(Timestamp.class).single().toInstant();

    // A window only a full batch can end: one statement for all eight renews proves each joined it.
    batcher.gatherWindow(Duration.ofMinutes(5));
    batcher.maxBatch(grants.size());
    long statementsBefore = batcher.statements();
    ExecutorService pool = Executors.newFixedThreadPool(grants.size());
    try {
      List<Future<LockGrant>> renewed = new ArrayList<>();
      for (LockGrant grant : grants) {
        renewed.add(pool.submit(() -> backend.renew(grant.key(), worker, grant.token())));
      }
      for (int i = 0; i < grants.size(); i++) {
        LockGrant answer = renewed.get(i).get(30, TimeUnit.SECONDS);
        assertThat(answer.key()).isEqualTo(grants.get(i).key());
        assertThat(answer.token()).isEqualTo(grants.get(i).token());
        assertThat(answer.expiresAt()).isAfterOrEqualTo(dbNowBefore.plus(Duration.ofSeconds(30)));
      }
    } finally {
      batcher.gatherWindow(PostgresBackendProperties.DEFAULT_KEEPALIVE_GATHER);
      batcher.maxBatch(KeepAliveBatcher.MAX_BATCH);
      pool.shutdownNow();
    }
    assertThat(batcher.statements() - statementsBefore).isEqualTo(1);
  }

  @Test
  void aRenewOfAGrantNoLongerHeldWritesNothingAndOneOfADeadSessionDoesNotReviveIt() {
    PostgresLockBackend backend = lockdb.backend();
    SessionId worker = backend.createSession("worker", Duration.ofSeconds(30)).sessionId();
    LockGrant released =
        backend.acquire(LockKey.of("renewed:" + UUID.randomUUID()), worker, Duration.ZERO);
    backend.release(released.key(), worker, released.token());
    String sessionBefore = sessionRow(worker);
    long statementsBefore = backend.keepAliveBatcher().statements();

    assertThatThrownBy(() -> backend.renew(released.key(), worker, released.token()))
        .isInstanceOfSatisfying(
            LockLostException.class,
            e -> assertThat(e.reason()).isEqualTo(LockLostException.Reason.NOT_HELD));
    // Refused before its keepalive: the session is not extended by someone else's grant (ADR
    // 0170's bad input writes nothing).
    assertThat(sessionRow(worker)).isEqualTo(sessionBefore);
    assertThat(backend.keepAliveBatcher().statements()).isEqualTo(statementsBefore);

    SessionId dead = backend.createSession("dead", Duration.ofSeconds(30)).sessionId();
    LockGrant ofDead =
        backend.acquire(LockKey.of("renewed:" + UUID.randomUUID()), dead, Duration.ZERO);
    jdbc.sql("UPDATE lock_session SET expires_at = now() - interval '1 second' WHERE id = :id")
        .param("id", UUID.fromString(dead.value()))
        .update();
    assertThatThrownBy(() -> backend.renew(ofDead.key(), dead, ofDead.token()))
        .isInstanceOfSatisfying(
            LockLostException.class,
            e -> assertThat(e.reason()).isEqualTo(LockLostException.Reason.SESSION_LOST));
    assertThat(
            jdbc.sql("SELECT expires_at > now() FROM lock_session WHERE id = :id")
                .param("id", UUID.fromString(dead.value()))
                .query(Boolean.class)
                .single())
        .as("a renew does not revive a dead session")
        .isFalse();
  }

  @Test
  void manyCallersRacingThroughSmallBatchesAndTwoStatementsAllGetTheirAnswers() throws Exception {
    // Leadership passes from caller to caller: a hand-over that went to nobody would leave a caller
    // waiting for ever. Batches of three and two statements at a time make every hand-over happen
    // hundreds of times: a caller left behind fails this test by its timeout.
    PostgresLockBackend backend = lockdb.backend();
    KeepAliveBatcher batcher = backend.keepAliveBatcher();
    int callers = 48;
    int each = 40;
    List<SessionId> sessions = new ArrayList<>();
    for (int i = 0; i < callers; i++) {
      sessions.add(backend.createSession("racer-" + i, Duration.ofSeconds(30)).sessionId());
    }
    batcher.maxConcurrentStatements(2);
    batcher.maxBatch(3);
    batcher.gatherWindow(Duration.ZERO);
    long statementsBefore = batcher.statements();
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    try {
      List<Future<Integer>> done = new ArrayList<>();
      for (SessionId s : sessions) {
        done.add(
            pool.submit(
                () -> {
                  int answered = 0;
                  for (int i = 0; i < each; i++) {
                    if (backend.keepAlive(s).sessionId().equals(s)) {
                      answered++;
                    }
                  }
                  return answered;
                }));
      }
      for (Future<Integer> f : done) {
        assertThat(f.get(60, TimeUnit.SECONDS)).isEqualTo(each);
      }
    } finally {
      batcher.maxConcurrentStatements(KeepAliveBatcher.MAX_CONCURRENT_STATEMENTS);
      batcher.maxBatch(KeepAliveBatcher.MAX_BATCH);
      batcher.gatherWindow(PostgresBackendProperties.DEFAULT_KEEPALIVE_GATHER);
      pool.shutdownNow();
    }
    assertThat(batcher.queued()).isZero();
    assertThat(batcher.statements() - statementsBefore)
        .as("batches of at most three")
        .isGreaterThanOrEqualTo(callers * each / 3);
  }

  @Test
  void withNoGatherWindowKeepalivesArrivingOneAfterAnotherEachRunTheirOwnStatement() {
    // The negative control of the window: the arrival pattern that shares one statement above
    // costs one statement per keepalive when nothing waits for company (0.98 commits each,
    // measured).
    PostgresLockBackend backend = lockdb.backend();
    KeepAliveBatcher batcher = backend.keepAliveBatcher();
    List<SessionId> sessions = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      sessions.add(backend.createSession("alone-" + i, Duration.ofSeconds(30)).sessionId());
    }
    batcher.gatherWindow(Duration.ZERO);
    long before = batcher.statements();
    try {
      for (SessionId s : sessions) {
        backend.keepAlive(s);
      }
    } finally {
      batcher.gatherWindow(PostgresBackendProperties.DEFAULT_KEEPALIVE_GATHER);
    }
    assertThat(batcher.statements() - before).isEqualTo(sessions.size());
  }

  @Test
  void aLoneKeepaliveRunsItsOwnStatementAfterTheGatherWindowAndExtendsBySessionTtl() {
    PostgresLockBackend backend = lockdb.backend();
    SessionId s = backend.createSession("solo", Duration.ofSeconds(20)).sessionId();
    Instant dbNowBefore = jdbc.sql("SELECT now()").query(Timestamp.class).single().toInstant();
    long before = backend.keepAliveBatcher().statements();

    SessionInfo info = backend.keepAlive(s);

    assertThat(backend.keepAliveBatcher().statements() - before).isEqualTo(1);
    assertThat(info.expiresAt()).isAfterOrEqualTo(dbNowBefore.plus(Duration.ofSeconds(20)));
  }

  private static String sessionRow(SessionId session) {
    return jdbc.sql(
            "SELECT expires_at || ' ' || last_heartbeat_at FROM lock_session WHERE id = :id")
        .param("id", UUID.fromString(session.value()))
        .query(String.class)
        .single();
  }

  private static Map<UUID, Timestamp> lastHeartbeats() {
    Map<UUID, Timestamp> beats = new java.util.HashMap<>();
    jdbc.sql("SELECT id, last_heartbeat_at FROM lock_session")
        .query(
            rs -> {
              beats.put(rs.getObject("id", UUID.class), rs.getTimestamp("last_heartbeat_at"));
            });
    return beats;
  }
}
