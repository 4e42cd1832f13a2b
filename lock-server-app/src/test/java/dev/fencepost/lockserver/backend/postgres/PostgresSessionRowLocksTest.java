package dev.fencepost.lockserver.backend.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockNotAcquiredException;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lock.SessionNotFoundException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * What the calls of one session do to its {@code lock_session} row (ADR 0194). A payout worker's
 * threads share one session: its acquires must not make its renews and keepalives queue on that
 * row, nor each other; and a takeover of the session, once it has expired, must still race a
 * keepalive and the session's own acquires on that row with exactly one winner (ADR 0004).
 *
 * <p>Each race is set up by holding one side's transaction open ({@link OpenTransaction}), running
 * the other side, and asking PostgreSQL ({@code pg_blocking_pids}) that it waits for the first,
 * before letting the first commit. Expiry is by PostgreSQL's clock: a side that must find the
 * session alive starts its transaction before the session's expiry, a takeover after it.
 */
@Tag("INV-06")
@Tag("FR-04")
class PostgresSessionRowLocksTest {

  @RegisterExtension static PostgresBackendExtension lockdb = new PostgresBackendExtension();

  private static final Duration BOUND = Duration.ofSeconds(30);

  /** The session's share lock the acquire took first, before ADR 0194. */
  private static final String OLD_ACQUIRE_SESSION_LOCK =
      "SELECT owner FROM lock_session WHERE id = :sid AND expires_at > now() FOR SHARE";

  /** Renew's own UPDATE of the session row, before ADR 0194. */
  private static final String OLD_RENEW =
      """
      UPDATE lock_session s
         SET expires_at = now() + s.ttl_millis * interval '1 millisecond',
             last_heartbeat_at = now()
        FROM lock_entry e
       WHERE s.id = :sid AND s.expires_at > now()
         AND e.lock_key = :key AND e.session_id = s.id AND e.token = :token
      """;

  private static JdbcClient jdbc;
  private static PostgresLockBackend backend;

  @BeforeAll
  static void start() {
    jdbc = JdbcClient.create(lockdb.dataSource());
    backend = lockdb.backend();
  }

  @Test
  void whileOneAcquireOfASessionIsUncommittedItsOtherAcquiresRenewsAndKeepalivesDoNotWait()
      throws Exception {
    SessionId worker = backend.createSession("payout-worker", Duration.ofMinutes(1)).sessionId();
    int threads = 16;
    try (OpenTransaction inFlight = new OpenTransaction(lockdb.dataSource())) {
      // One thread's acquire stopped just before its commit: every row lock it takes is held.
      assertThat(inFlight.acquire(freshKey().value(), worker.value())).isEqualTo("GRANTED");

      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<?>> payouts = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
          payouts.add(
              pool.submit(
                  () -> {
                    LockKey key = freshKey();
                    LockGrant grant = backend.acquire(key, worker, Duration.ZERO);
                    assertThat(backend.renew(key, worker, grant.token()).token())
                        .isEqualTo(grant.token());
                    backend.keepAlive(worker);
                    backend.release(key, worker, grant.token());
                    return null;
                  }));
        }
        // With the in-flight acquire still uncommitted: none of them waited for it.
        for (Future<?> payout : payouts) {
          payout.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(blockedBy(inFlight.pid())).isZero();
      inFlight.commit();
    }
  }

  @Test
  void negativeControlTheOldAcquiresShareLockMadeARenewWaitWhereTheNewAcquireDoesNot()
      throws Exception {
    SessionId worker = backend.createSession("payout-worker", Duration.ofMinutes(1)).sessionId();
    LockKey key = freshKey();
    LockGrant held = backend.acquire(key, worker, Duration.ZERO);

    // Before: an acquire's share lock on the session row, uncommitted, and the old renew.
    try (OpenTransaction oldAcquire = new OpenTransaction(lockdb.dataSource());
        OpenTransaction oldRenew = new OpenTransaction(lockdb.dataSource())) {
      assertThat(
              oldAcquire
                  .sql()
                  .sql(OLD_ACQUIRE_SESSION_LOCK)
                  .param("sid", uuid(worker))
                  .query(String.class)
                  .single())
          .isEqualTo("payout-worker");
      CompletableFuture<Integer> renewed =
          CompletableFuture.supplyAsync(
              () ->
                  oldRenew
                      .sql()
                      .sql(OLD_RENEW)
                      .param("sid", uuid(worker))
                      .param("key", key.value())
                      .param("token", held.token().value())
                      .update());
      await().atMost(BOUND).until(() -> blockedBy(oldAcquire.pid()) == 1);
      assertThat(renewed).isNotDone();
      oldAcquire.commit();
      assertThat(renewed.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo(1);
      oldRenew.commit();
    }

    // After: the acquire function, uncommitted, and the renew; it does not wait.
    try (OpenTransaction newAcquire = new OpenTransaction(lockdb.dataSource())) {
      assertThat(newAcquire.acquire(freshKey().value(), worker.value())).isEqualTo("GRANTED");
      CompletableFuture<LockGrant> renewed =
          CompletableFuture.supplyAsync(() -> backend.renew(key, worker, held.token()));
      assertThat(renewed.get(BOUND.toSeconds(), TimeUnit.SECONDS).token()).isEqualTo(held.token());
      assertThat(blockedBy(newAcquire.pid())).isZero();
      newAcquire.commit();
    }
  }

  @Test
  void aKeepaliveThatLocksTheExpiringSessionFirstWinsAndTheTakeoverFindsTheKeyStillHeld()
      throws Exception {
    SessionId dying = backend.createSession("dying", Duration.ofMinutes(1)).sessionId();
    LockKey key = freshKey();
    LockGrant held = backend.acquire(key, dying, Duration.ZERO);
    SessionId successor = backend.createSession("successor", Duration.ofMinutes(1)).sessionId();
    Timestamp expiry = expireIn(dying, Duration.ofSeconds(2));

    try (OpenTransaction keepalive = new OpenTransaction(lockdb.dataSource())) {
      // The keepalive runs before the expiry by its clock and extends the session, uncommitted.
      assertThat(keepalive.now()).isBefore(expiry);
      assertThat(extend(keepalive, dying)).containsExactly(uuid(dying));
      awaitDatabaseClockPast(expiry);
      // The takeover runs after it by its own clock: the committed row says expired.
      CompletableFuture<LockGrant> takeover =
          CompletableFuture.supplyAsync(() -> backend.acquire(key, successor, Duration.ZERO));
      await().atMost(BOUND).until(() -> blockedBy(keepalive.pid()) == 1);
      keepalive.commit();

      assertThatThrownBy(() -> takeover.get(BOUND.toSeconds(), TimeUnit.SECONDS))
          .hasCauseInstanceOf(LockNotAcquiredException.class);
    }
    assertThat(backend.inspect(key).token()).isEqualTo(held.token());
    assertThat(backend.renew(key, dying, held.token()).token()).isEqualTo(held.token());
    assertThat(events(dying)).containsExactly(key.value() + " ACQUIRED");
  }

  @Test
  void aTakeoverThatDeletesTheExpiredSessionFirstWinsAndTheKeepaliveFindsNoSession()
      throws Exception {
    SessionId dying = backend.createSession("dying", Duration.ofMinutes(1)).sessionId();
    LockKey key = freshKey();
    LockGrant held = backend.acquire(key, dying, Duration.ZERO);
    SessionId successor = backend.createSession("successor", Duration.ofMinutes(1)).sessionId();
    Timestamp expiry = expireIn(dying, Duration.ofSeconds(2));

    try (OpenTransaction keepalive = new OpenTransaction(lockdb.dataSource())) {
      // The keepalive's transaction starts before the expiry: by its clock the session is alive.
      assertThat(keepalive.now()).isBefore(expiry);
      awaitDatabaseClockPast(expiry);
      try (OpenTransaction takeover = new OpenTransaction(lockdb.dataSource())) {
        // The takeover's starts after it, and deletes the session, uncommitted.
        assertThat(takeover.acquire(key.value(), successor.value())).isEqualTo("GRANTED");
        CompletableFuture<List<UUID>> extended =
            CompletableFuture.supplyAsync(() -> extend(keepalive, dying));
        await().atMost(BOUND).until(() -> blockedBy(takeover.pid()) == 1);
        takeover.commit();

        assertThat(extended.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEmpty();
      }
      keepalive.commit();
    }
    assertThatThrownBy(() -> backend.keepAlive(dying)).isInstanceOf(SessionNotFoundException.class);
    assertThat(backend.inspect(key).token().value()).isGreaterThan(held.token().value());
    assertThat(events(dying)).containsExactly(key.value() + " ACQUIRED", key.value() + " EXPIRED");
  }

  @Test
  void aTakeoverThatDeletesTheExpiredSessionFirstLeavesItsOwnInFlightAcquireWithNoSession()
      throws Exception {
    SessionId dying = backend.createSession("dying", Duration.ofMinutes(1)).sessionId();
    LockKey taken = freshKey();
    backend.acquire(taken, dying, Duration.ZERO);
    LockKey other = freshKey();
    SessionId otherHolder = backend.createSession("other", Duration.ofMinutes(1)).sessionId();
    backend.acquire(other, otherHolder, Duration.ZERO);
    // The other key's holder expired: a key held by a live session is refused from a plain read,
    // without waiting for its row (ADR 0209); an expired holder's row is locked, so the acquire
    // below waits for it.
    expireIn(otherHolder, Duration.ofMillis(-1_000));
    SessionId successor = backend.createSession("successor", Duration.ofMinutes(1)).sessionId();
    Timestamp expiry = expireIn(dying, Duration.ofSeconds(2));

    try (OpenTransaction release = new OpenTransaction(lockdb.dataSource())) {
      // The dying session's acquire of the other key starts before its expiry and waits for that
      // key's row, which a release holds.
      release
          .sql()
          .sql("DELETE FROM lock_entry WHERE lock_key = :key")
          .param("key", other.value())
          .update();
      CompletableFuture<LockGrant> acquire =
          CompletableFuture.supplyAsync(() -> backend.acquire(other, dying, Duration.ZERO));
      await().atMost(BOUND).until(() -> blockedBy(release.pid()) == 1);
      awaitDatabaseClockPast(expiry);
      try (OpenTransaction takeover = new OpenTransaction(lockdb.dataSource())) {
        // A takeover after the expiry deletes the session, uncommitted.
        assertThat(takeover.acquire(taken.value(), successor.value())).isEqualTo("GRANTED");
        // The key free, the acquire goes on to claim it and waits for the takeover's DELETE.
        release.commit();
        await().atMost(BOUND).until(() -> blockedBy(takeover.pid()) == 1);
        takeover.commit();
      }

      assertThatThrownBy(() -> acquire.get(BOUND.toSeconds(), TimeUnit.SECONDS))
          .hasCauseInstanceOf(SessionNotFoundException.class);
    }
    assertThat(backend.inspect(other).held()).isFalse();
    assertThat(backend.inspect(taken).owner()).isEqualTo("successor");
  }

  @Test
  void aTakeoverThatWaitsForTheExpiredSessionsOwnInFlightAcquireEndsThatGrantToo()
      throws Exception {
    SessionId dying = backend.createSession("dying", Duration.ofMinutes(1)).sessionId();
    LockKey taken = freshKey();
    LockGrant first = backend.acquire(taken, dying, Duration.ZERO);
    LockKey other = freshKey();
    SessionId successor = backend.createSession("successor", Duration.ofMinutes(1)).sessionId();
    Timestamp expiry = expireIn(dying, Duration.ofSeconds(2));

    long second;
    try (OpenTransaction acquire = new OpenTransaction(lockdb.dataSource())) {
      // The dying session's acquire of another key, by its clock before the expiry, uncommitted.
      assertThat(acquire.acquire(other.value(), dying.value())).isEqualTo("GRANTED");
      second =
          acquire
              .sql()
              .sql("SELECT token FROM lock_entry WHERE lock_key = :key")
              .param("key", other.value())
              .query(Long.class)
              .single();
      awaitDatabaseClockPast(expiry);
      CompletableFuture<LockGrant> takeover =
          CompletableFuture.supplyAsync(() -> backend.acquire(taken, successor, Duration.ZERO));
      await().atMost(BOUND).until(() -> blockedBy(acquire.pid()) == 1);
      acquire.commit();

      assertThat(takeover.get(BOUND.toSeconds(), TimeUnit.SECONDS).token().value())
          .isGreaterThan(second);
    }
    // The session went with both keys, and each grant it had got its end in the history: the one
    // committed while the takeover waited too.
    assertThat(backend.inspect(other).held()).isFalse();
    assertThat(events(dying))
        .containsExactlyInAnyOrder(
            taken.value() + " ACQUIRED",
            other.value() + " ACQUIRED",
            taken.value() + " EXPIRED",
            other.value() + " EXPIRED");
    assertThat(first.token().value()).isLessThan(second);
  }

  @Test
  void aCloseThatWaitsForItsSessionsInFlightAcquireEndsThatGrantWithItsEvent() throws Exception {
    SessionId closing = backend.createSession("closing", Duration.ofMinutes(1)).sessionId();
    LockKey held = freshKey();
    backend.acquire(held, closing, Duration.ZERO);
    LockKey inFlight = freshKey();

    try (OpenTransaction acquire = new OpenTransaction(lockdb.dataSource())) {
      // The session's acquire of a second key, uncommitted, holds its session row's key share.
      assertThat(acquire.acquire(inFlight.value(), closing.value())).isEqualTo("GRANTED");
      CompletableFuture<Void> close =
          CompletableFuture.runAsync(() -> backend.closeSession(closing));
      await().atMost(BOUND).until(() -> blockedBy(acquire.pid()) == 1);
      acquire.commit();
      close.get(BOUND.toSeconds(), TimeUnit.SECONDS);
    }
    // Both grants ended with the session, and the history says so for both: the one committed
    // while the close waited too (ADR 0200). Without the close's row lock first, that key went
    // with the cascade and the history checker would read its next grant as a second holder.
    assertThat(backend.inspect(inFlight).held()).isFalse();
    assertThat(events(closing))
        .containsExactlyInAnyOrder(
            held.value() + " ACQUIRED",
            inFlight.value() + " ACQUIRED",
            held.value() + " SESSION_CLOSED",
            inFlight.value() + " SESSION_CLOSED");
  }

  @Test
  void anAcquireThatWaitsForItsSessionsCloseClaimsNothingAndFindsNoSession() throws Exception {
    SessionId closing = backend.createSession("closing", Duration.ofMinutes(1)).sessionId();
    LockKey key = freshKey();

    try (OpenTransaction close = new OpenTransaction(lockdb.dataSource())) {
      // The close's row lock, uncommitted: the session is still there and alive by its expiry.
      close
          .sql()
          .sql("SELECT 1 FROM lock_session WHERE id = :id FOR UPDATE")
          .param("id", uuid(closing))
          .query(Integer.class)
          .list();
      CompletableFuture<LockGrant> acquire =
          CompletableFuture.supplyAsync(() -> backend.acquire(key, closing, Duration.ZERO));
      await().atMost(BOUND).until(() -> blockedBy(close.pid()) == 1);
      close
          .sql()
          .sql("DELETE FROM lock_session WHERE id = :id")
          .param("id", uuid(closing))
          .update();
      close.commit();

      assertThatThrownBy(() -> acquire.get(BOUND.toSeconds(), TimeUnit.SECONDS))
          .hasCauseInstanceOf(SessionNotFoundException.class);
    }
    assertThat(backend.inspect(key).held()).isFalse();
    assertThat(events(closing)).isEmpty();
  }

  private static LockKey freshKey() {
    return LockKey.of("rows:" + UUID.randomUUID());
  }

  private static UUID uuid(SessionId session) {
    return UUID.fromString(session.value());
  }

  /** Sets the session's expiry {@code in} from PostgreSQL's clock now; that expiry. */
  private static Timestamp expireIn(SessionId session, Duration in) {
    return jdbc.sql(
            """
            UPDATE lock_session SET expires_at = clock_timestamp() + :ms * interval '1 millisecond'
             WHERE id = :sid RETURNING expires_at
            """)
        .param("ms", in.toMillis())
        .param("sid", uuid(session))
        .query(Timestamp.class)
        .single();
  }

  private static void awaitDatabaseClockPast(Timestamp instant) {
    await()
        .atMost(BOUND)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () ->
                jdbc.sql("SELECT clock_timestamp() > :t")
                    .param("t", instant)
                    .query(Boolean.class)
                    .single());
  }

  /** The keepalive statement for one session, in {@code tx}; the sessions it extended. */
  private static List<UUID> extend(OpenTransaction tx, SessionId session) {
    return tx.sql()
        .sql(KeepAliveBatcher.EXTEND)
        .param("ids", "{" + session.value() + "}")
        .query((rs, n) -> rs.getObject("id", UUID.class))
        .list();
  }

  /** How many PostgreSQL sessions wait for a lock that the session {@code pid} holds. */
  private static int blockedBy(int pid) {
    return jdbc.sql("SELECT count(*) FROM pg_stat_activity WHERE :pid = ANY(pg_blocking_pids(pid))")
        .param("pid", pid)
        .query(Integer.class)
        .single();
  }

  private static List<String> events(SessionId session) {
    return jdbc.sql(
            "SELECT lock_key || ' ' || kind FROM lock_event WHERE session_id = :sid ORDER BY id")
        .param("sid", uuid(session))
        .query(String.class)
        .list();
  }
}
