package dev.fencepost.lockserver.backend.postgres;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockInfo;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.LockNotAcquiredException;
import dev.fencepost.lock.NotHolderException;
import dev.fencepost.lock.RevokeResult;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lock.SessionInfo;
import dev.fencepost.lock.SessionNotFoundException;
import dev.fencepost.lockserver.backend.BackendUnavailableException;
import dev.fencepost.lockserver.backend.LockBackend;
import dev.fencepost.lockserver.backend.WaitQueues;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The PostgreSQL lock backend (FR-09). lockdb holds sessions, lock entries, a token sequence and an
 * append-only history; every decision is made by PostgreSQL inside a statement, by its clock (ADR
 * 0004).
 *
 * <p>How the rules of {@link LockBackend} are kept:
 *
 * <ul>
 *   <li>Mutual exclusion (INV-06): {@code lock_entry.lock_key} is the primary key. A free key is
 *       taken with {@code INSERT ... ON CONFLICT DO NOTHING}; a key whose holder's session has
 *       expired is taken over by deleting that session ({@code DELETE ... WHERE expires_at <=
 *       now()}) in the acquiring transaction. That delete and a racing keepalive ({@code UPDATE ...
 *       WHERE expires_at > now()}) lock the same session row, so exactly one of them wins: either
 *       the session was extended and the key stays held, or the session is gone and its keepalive
 *       fails. An acquire takes no lock on its own session row beyond the key-share lock of its
 *       claiming {@code INSERT ... SELECT ... FROM lock_session WHERE expires_at > now()}, which
 *       the foreign key takes anyway: it does not conflict with keepalives, and a DELETE of the
 *       session (takeover or close) either waits for the acquire or makes its claim find no session
 *       (ADR 0194). Renew extends the session only through the keepalive statement.
 *   <li>Tokens (INV-04, ADR 0001): {@code nextval('lock_token_seq')}, a NO CYCLE sequence, drawn
 *       only after the acquiring transaction owns the key's row, and returned only after it
 *       committed (the acquire is one autocommit statement, {@code lock_acquire}, whose row the
 *       driver hands over only once the commit is done).
 *   <li>Expiry (ADR 0004): only ever {@code expires_at} compared with {@code now()} inside SQL.
 * </ul>
 */
public final class PostgresLockBackend implements LockBackend {

  private static final int MAX_ATTEMPTS = 5;

  private final JdbcClient jdbc;
  private final TransactionTemplate tx;
  private final ReleaseListener releases;
  private final SessionGrace grace;
  private final KeepAliveBatcher keepAlives;
  private final AtomicLong attempts = new AtomicLong();
  private volatile Runnable afterFailedAttempt = () -> {};

  /**
   * @param keepAliveGather how long the first of a batch of keepalives waits for others to share
   *     its statement (ADR 0188)
   */
  public PostgresLockBackend(
      JdbcClient jdbc,
      TransactionTemplate tx,
      ReleaseListener releases,
      SessionGrace grace,
      Duration keepAliveGather) {
    this.jdbc = jdbc;
    this.tx = tx;
    this.releases = releases;
    this.grace = grace;
    this.keepAlives = new KeepAliveBatcher(jdbc, this::call, keepAliveGather);
  }

  @Override
  public String name() {
    return "postgres";
  }

  @Override
  public SessionInfo createSession(String owner, String principal, Duration ttl) {
    UUID id = UUID.randomUUID();
    return call(
        () ->
            jdbc.sql(
                    """
                    INSERT INTO lock_session (id, owner, principal, ttl_millis, expires_at)
                    VALUES (:id, :owner, :principal, :ttl, now() + :ttl * interval '1 millisecond')
                    RETURNING expires_at
                    """)
                .param("id", id)
                .param("owner", owner)
                .param("principal", principal, java.sql.Types.VARCHAR)
                .param("ttl", ttl.toMillis())
                .query(
                    (rs, n) ->
                        new SessionInfo(
                            new SessionId(id.toString()),
                            owner,
                            ttl,
                            rs.getTimestamp("expires_at").toInstant()))
                .single());
  }

  @Override
  public Optional<String> sessionPrincipal(SessionId sessionId) {
    Optional<UUID> id = parse(sessionId);
    if (id.isEmpty()) {
      return Optional.empty();
    }
    return call(
        () ->
            jdbc
                .sql("SELECT principal FROM lock_session WHERE id = :id AND expires_at > now()")
                .param("id", id.get())
                .query(String.class)
                .list()
                .stream()
                .filter(java.util.Objects::nonNull)
                .findFirst());
  }

  @Override
  public SessionInfo keepAlive(SessionId sessionId) {
    UUID id = parse(sessionId).orElseThrow(() -> new SessionNotFoundException(sessionId));
    return extended(
        sessionId,
        keepAlives.keepAlive(id).orElseThrow(() -> new SessionNotFoundException(sessionId)));
  }

  @Override
  public CompletableFuture<SessionInfo> keepAliveAsync(SessionId sessionId) {
    Optional<UUID> id = parse(sessionId);
    if (id.isEmpty()) {
      return CompletableFuture.failedFuture(new SessionNotFoundException(sessionId));
    }
    CompletableFuture<SessionInfo> answer = new CompletableFuture<>();
    keepAlives.keepAliveAsync(
        id.get(),
        (extended, failure) -> {
          if (failure != null) {
            answer.completeExceptionally(failure);
          } else if (extended.isEmpty()) {
            answer.completeExceptionally(new SessionNotFoundException(sessionId));
          } else {
            answer.complete(extended(sessionId, extended.get()));
          }
        });
    return answer;
  }

  /** The session as the keepalive statement extended it. */
  private static SessionInfo extended(SessionId sessionId, KeepAliveBatcher.Extended e) {
    return new SessionInfo(sessionId, e.owner(), e.ttl(), e.expiresAt());
  }

  /** Test seam: {@code lock_acquire} calls so far. */
  long attempts() {
    return attempts.get();
  }

  /** Test seam: runs in a waiting acquire's thread after each of its attempts that failed. */
  void afterFailedAttempt(Runnable hook) {
    this.afterFailedAttempt = hook;
  }

  /** Test seam: the batcher behind {@link #keepAlive}. */
  KeepAliveBatcher keepAliveBatcher() {
    return keepAlives;
  }

  @Override
  public void closeSession(SessionId sessionId) {
    Optional<UUID> id = parse(sessionId);
    if (id.isEmpty()) {
      return;
    }
    List<String> freed =
        call(
            () ->
                tx.execute(
                    status -> {
                      // The session's row first, in a statement of its own, as a takeover does
                      // (ADR 0200): an acquire of this session still in flight holds the row's
                      // key share, so this waits for it, and the next statement's snapshot, taken
                      // after the wait, sees the key it claimed. Read in the same statement as the
                      // DELETE, that key went with the cascade and without its SESSION_CLOSED.
                      jdbc.sql("SELECT 1 FROM lock_session WHERE id = :id FOR UPDATE")
                          .param("id", id.get())
                          .query(Integer.class)
                          .list();
                      List<String> keys =
                          jdbc.sql(
                                  """
                                  INSERT INTO lock_event (lock_key, token, session_id, kind)
                                  SELECT lock_key, token, session_id, 'SESSION_CLOSED'
                                    FROM lock_entry WHERE session_id = :id
                                  RETURNING lock_key
                                  """)
                              .param("id", id.get())
                              .query(String.class)
                              .list();
                      jdbc.sql("DELETE FROM lock_session WHERE id = :id")
                          .param("id", id.get())
                          .update();
                      keys.forEach(this::notifyFreed);
                      return keys;
                    }));
    freed.forEach(releases::localWake);
  }

  @Override
  public LockGrant acquire(LockKey key, SessionId sessionId, Duration wait) {
    UUID session = parse(sessionId).orElseThrow(() -> new SessionNotFoundException(sessionId));
    if (wait.isZero()) {
      return attemptAcquire(key, sessionId, session).orThrow(key);
    }
    long deadline = System.nanoTime() + wait.toNanos();
    // In the key's queue before the first attempt, so that a release after it finds this waiter
    // (ADR 0208). A grant at once leaves the queue untouched but for this ticket.
    WaitQueues waiters = releases.waiters();
    WaitQueues.Ticket ticket = waiters.join(key.value());
    boolean granted = false;
    UUID waiterId = null;
    try {
      while (true) {
        waiters.beforeAttempt(ticket);
        Attempt attempt = attemptAcquire(key, sessionId, session);
        if (attempt.grant() != null) {
          granted = true;
          return attempt.grant();
        }
        waiters.foundHeld(ticket);
        afterFailedAttempt.run();
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return attempt.orThrow(key);
        }
        if (waiters.woken(ticket)) {
          continue;
        }
        if (waiterId == null) {
          // Waiting: registered as a waiter (for inspection), woken when the key is freed (NOTIFY,
          // or a release on this instance), or at the holder's expiry if it dies silently. Never
          // a tight polling loop.
          waiterId = UUID.randomUUID();
          registerWaiter(waiterId, key, session);
        }
        long untilHolderExpiry =
            attempt.holderExpiresInMillis() == null
                ? Long.MAX_VALUE
                : Math.max(attempt.holderExpiresInMillis() + 5, 5) * 1_000_000L;
        waiters.await(ticket, Math.min(left, untilHolderExpiry));
        if (Thread.currentThread().isInterrupted()) {
          // Shutting down: give up now rather than spin on attempts until the deadline.
          return attempt.orThrow(key);
        }
      }
    } finally {
      waiters.leave(ticket, granted);
      if (waiterId != null) {
        unregisterWaiter(waiterId);
      }
    }
  }

  /**
   * A waiter row is for inspection alone ({@link #inspect} counts it; no grant reads it), so it is
   * written and deleted in an asynchronous commit (ADR 0213): {@code set_config(..., true)} turns
   * {@code synchronous_commit} off for this one statement's transaction, and the connection goes
   * back to the pool as it came. The next grant's or release's flush makes the row durable anyway;
   * a crash before that loses at most this row or its deletion, a miscount of waiters until the
   * waiter returns or its session cascades the row away.
   */
  static final String REGISTER_WAITER =
      """
      INSERT INTO lock_waiter (id, lock_key, session_id)
      SELECT :wid, :key, id FROM lock_session
       WHERE id = :sid AND set_config('synchronous_commit', 'off', true) IS NOT NULL
      """;

  /** The waiter's row leaves as it came, without waiting for a flush (ADR 0213). */
  static final String UNREGISTER_WAITER =
      """
      DELETE FROM lock_waiter
       WHERE id = :wid AND set_config('synchronous_commit', 'off', true) IS NOT NULL
      """;

  private void registerWaiter(UUID waiterId, LockKey key, UUID session) {
    call(
        () ->
            jdbc.sql(REGISTER_WAITER)
                .param("wid", waiterId)
                .param("key", key.value())
                .param("sid", session)
                .update());
  }

  private void unregisterWaiter(UUID waiterId) {
    try {
      jdbc.sql(UNREGISTER_WAITER).param("wid", waiterId).update();
    } catch (DataAccessException e) {
      // The waiter row cascades away with its session; inspection may over-count meanwhile.
    }
  }

  /** One try: returns the grant, or how long until the current holder's session expires. */
  private Attempt attemptAcquire(LockKey key, SessionId sessionId, UUID session) {
    for (int i = 1; ; i++) {
      try {
        return call(() -> acquireOnce(key, sessionId, session));
      } catch (PessimisticLockingFailureException e) {
        // A deadlock between two takeovers; the loser retries. Bounded.
        if (i >= MAX_ATTEMPTS) {
          throw new BackendUnavailableException("lockdb kept aborting acquire", e);
        }
      }
    }
  }

  /**
   * One attempt in one statement, {@code lock_acquire} (lockdb-004 and -005, ADRs 0194 and 0209),
   * in autocommit: its own transaction, committed before the driver hands its row over, so a token
   * is returned only after COMMIT. The function keeps the old steps and their order: the caller's
   * session read without a row lock, a key held by another live session refused from a read that
   * locks nothing, else the key's row locked, an expired holder taken over (its session deleted,
   * EXPIRED recorded, waiters of its other keys notified), the key claimed with a placeholder token
   * by an INSERT that proves the caller's session alive, and only then the token drawn and ACQUIRED
   * recorded.
   */
  private Attempt acquireOnce(LockKey key, SessionId sessionId, UUID session) {
    attempts.incrementAndGet();
    AcquireRow row =
        jdbc.sql(
                """
                SELECT outcome, r_session_id AS session_id, r_owner AS owner, r_token AS token,
                       r_acquired AS acquired_at, r_expires AS expires_at,
                       r_expires_in AS expires_in
                  FROM lock_acquire(:key, :sid)
                """)
            .param("key", key.value())
            .param("sid", session)
            .query(
                (rs, n) -> {
                  String outcome = rs.getString("outcome");
                  long expiresIn = rs.getLong("expires_in");
                  Long holderExpiresIn = rs.wasNull() ? null : expiresIn;
                  return new AcquireRow(
                      outcome, "GRANTED".equals(outcome) ? entryRow(rs, n) : null, holderExpiresIn);
                })
            .single();
    return switch (row.outcome()) {
      case "GRANTED" -> Attempt.granted(row.granted().toGrant(key, sessionId));
      case "HELD" -> Attempt.held(row.holderExpiresInMillis());
      case "NO_SESSION" -> throw new SessionNotFoundException(sessionId);
      default -> throw new IllegalStateException("lock_acquire answered " + row.outcome());
    };
  }

  /**
   * Renew without a statement of its own that writes the session row, so that it never queues
   * behind the session's acquires, nor they behind it (ADR 0194): a read confirms the grant, so
   * that a renew of a grant that is not the caller's writes nothing (ADR 0170); the keepalive
   * statement (shared with keepalives and other renews, ADR 0188) extends the session, never a dead
   * one; and a second read, after that extension, confirms the grant again and gives the answer,
   * true at the instant of that read.
   */
  @Override
  public LockGrant renew(LockKey key, SessionId sessionId, FencingToken token) {
    Optional<UUID> session = parse(sessionId);
    if (session.isEmpty()) {
      throw lost(key, null, token);
    }
    UUID id = session.get();
    if (currentGrant(key, id, token).isEmpty() || keepAlives.keepAlive(id).isEmpty()) {
      throw lost(key, id, token);
    }
    return currentGrant(key, id, token)
        .map(row -> row.toGrant(key, sessionId))
        .orElseThrow(() -> lost(key, id, token));
  }

  /** (key, session, token) if it is the key's grant and its session is alive, read without lock. */
  private Optional<EntryRow> currentGrant(LockKey key, UUID session, FencingToken token) {
    return call(
        () ->
            jdbc.sql(
                    """
                    SELECT e.session_id, e.owner, e.token, e.acquired_at, s.expires_at,
                           0::bigint AS expires_in
                      FROM lock_entry e JOIN lock_session s ON s.id = e.session_id
                     WHERE e.lock_key = :key AND e.session_id = :sid AND e.token = :token
                       AND s.expires_at > now()
                    """)
                .param("sid", session)
                .param("key", key.value())
                .param("token", token.value())
                .query(PostgresLockBackend::entryRow)
                .optional());
  }

  /**
   * Appends one entry to the grant history ({@code lock_event}, append-only), in the caller's
   * transaction. {@code kind} is one the table's CHECK allows.
   */
  private void recordEvent(LockKey key, long token, UUID session, String kind) {
    jdbc.sql(
            """
            INSERT INTO lock_event (lock_key, token, session_id, kind)
            VALUES (:key, :token, :sid, :kind)
            """)
        .param("key", key.value())
        .param("token", token)
        .param("sid", session)
        .param("kind", kind)
        .update();
  }

  /** Works out, for the caller's benefit, why a grant is no longer valid. */
  private LockLostException lost(LockKey key, UUID session, FencingToken token) {
    boolean revoked =
        call(
            () ->
                jdbc.sql(
                            "SELECT count(*) FROM lock_audit WHERE lock_key = :key AND revoked_token = :token")
                        .param("key", key.value())
                        .param("token", token.value())
                        .query(Long.class)
                        .single()
                    > 0);
    if (revoked) {
      return new LockLostException(key, LockLostException.Reason.REVOKED, "revoked by an operator");
    }
    boolean sessionAlive =
        session != null
            && call(
                () ->
                    jdbc.sql(
                                "SELECT count(*) FROM lock_session WHERE id = :sid AND expires_at > now()")
                            .param("sid", session)
                            .query(Long.class)
                            .single()
                        > 0);
    return sessionAlive
        ? new LockLostException(key, LockLostException.Reason.NOT_HELD, "no longer the holder")
        : new LockLostException(key, LockLostException.Reason.SESSION_LOST, "session expired");
  }

  /**
   * A release in one autocommit statement (ADR 0210): the grant's row deleted if (key, session,
   * token) is still the key's grant, RELEASED recorded and the key's waiters notified, all in the
   * statement's own transaction; one row back if it released, none if it was not the grant.
   *
   * <p>It commits without waiting for the WAL flush (ADR 0221): the next grant of any key, a
   * synchronous commit on the same server, flushes the WAL past it before that grant is answered,
   * so no holder after this one can exist without the release being durable. A crash of lockdb's
   * PostgreSQL before that flush can only give the key back to this session, still with the key's
   * highest token, until it takes the key again (an idempotent grant) and releases it, or ends.
   */
  private static final String RELEASE =
      """
      WITH gone AS (
        DELETE FROM lock_entry
         WHERE lock_key = :key AND session_id = :sid AND token = :token
           AND set_config('synchronous_commit', 'off', true) IS NOT NULL
        RETURNING lock_key, token, session_id
      ), event AS (
        INSERT INTO lock_event (lock_key, token, session_id, kind)
        SELECT lock_key, token, session_id, 'RELEASED' FROM gone
        RETURNING lock_key
      )
      SELECT pg_notify('%s', lock_key) FROM event
      """
          .formatted(ReleaseListener.CHANNEL);

  @Override
  public void release(LockKey key, SessionId sessionId, FencingToken token) {
    UUID session = parse(sessionId).orElseThrow(() -> new NotHolderException(key));
    int released =
        call(
            () ->
                jdbc.sql(RELEASE)
                    .param("key", key.value())
                    .param("sid", session)
                    .param("token", token.value())
                    .query()
                    .listOfRows()
                    .size());
    if (released == 0) {
      throw new NotHolderException(key);
    }
    releases.localWake(key.value());
  }

  @Override
  public LockInfo inspect(LockKey key) {
    return call(
        () -> {
          int waiters =
              jdbc.sql(
                      """
                      SELECT count(*) FROM lock_waiter w JOIN lock_session s ON s.id = w.session_id
                       WHERE w.lock_key = :key AND s.expires_at > now()
                      """)
                  .param("key", key.value())
                  .query(Integer.class)
                  .single();
          return entry(key)
              .filter(row -> row.expiresInMillis() > 0)
              .map(
                  row ->
                      new LockInfo(
                          key,
                          true,
                          row.owner(),
                          new SessionId(row.sessionId().toString()),
                          new FencingToken(row.token()),
                          row.acquiredAt(),
                          row.expiresAt(),
                          waiters))
              .orElseGet(() -> LockInfo.free(key, waiters));
        });
  }

  @Override
  public RevokeResult revoke(LockKey key, String operator, String reason) {
    RevokeResult result =
        call(
            () ->
                tx.execute(
                    status -> {
                      Optional<EntryRow> revoked =
                          jdbc.sql(
                                  """
                                  DELETE FROM lock_entry WHERE lock_key = :key
                                  RETURNING session_id, owner, token, acquired_at,
                                            now() AS expires_at, 0::bigint AS expires_in
                                  """)
                              .param("key", key.value())
                              .query(PostgresLockBackend::entryRow)
                              .optional();
                      jdbc.sql(
                              """
                              INSERT INTO lock_audit
                                (action, lock_key, operator, reason, revoked_token, revoked_owner)
                              VALUES ('REVOKE', :key, :operator, :reason, :token, :owner)
                              """)
                          .param("key", key.value())
                          .param("operator", operator)
                          .param("reason", reason)
                          .param("token", revoked.map(EntryRow::token).orElse(null))
                          .param("owner", revoked.map(EntryRow::owner).orElse(null))
                          .update();
                      revoked.ifPresent(
                          row -> recordEvent(key, row.token(), row.sessionId(), "REVOKED"));
                      // Every later token comes from the same NO CYCLE sequence, so it is higher
                      // than the revoked one by construction (INV-04); nothing to advance.
                      notifyFreed(key.value());
                      return new RevokeResult(
                          key,
                          revoked.map(r -> new FencingToken(r.token())).orElse(null),
                          revoked.map(EntryRow::owner).orElse(null));
                    }));
    releases.localWake(key.value());
    return result;
  }

  @Override
  public BackendStats stats() {
    return call(
        () ->
            jdbc.sql(
                    """
                    SELECT (SELECT count(*) FROM lock_session WHERE expires_at > now()) AS sessions,
                           (SELECT count(*) FROM lock_entry e JOIN lock_session s
                                ON s.id = e.session_id WHERE s.expires_at > now()) AS locks
                    """)
                .query((rs, n) -> new BackendStats(rs.getLong("sessions"), rs.getLong("locks")))
                .single());
  }

  private Optional<EntryRow> entry(LockKey key) {
    return jdbc.sql(
            """
            SELECT e.session_id, e.owner, e.token, e.acquired_at, s.expires_at,
                   (extract(epoch FROM s.expires_at - now()) * 1000)::bigint AS expires_in
              FROM lock_entry e JOIN lock_session s ON s.id = e.session_id
             WHERE e.lock_key = :key
            """)
        .param("key", key.value())
        .query(PostgresLockBackend::entryRow)
        .optional();
  }

  private void notifyFreed(String key) {
    jdbc.sql("SELECT pg_notify('" + ReleaseListener.CHANNEL + "', :key)")
        .param("key", key)
        .query()
        .singleValue();
  }

  /**
   * Runs a backend call after any pending grace step, translating "cannot reach lockdb" into {@link
   * BackendUnavailableException} and remembering that an outage happened.
   */
  private <T> T call(Supplier<T> body) {
    try {
      grace.applyIfPending();
      return body.get();
    } catch (PessimisticLockingFailureException | DataIntegrityViolationException e) {
      if (SessionGrace.isTimeout(e)) {
        // lock_timeout: not a deadlock worth retrying but lockdb too slow to answer within its
        // bound (ADR 0155); the transaction rolled back, so nothing was written.
        throw new BackendUnavailableException("lockdb did not answer in time", e);
      }
      throw e;
    } catch (TransactionException e) {
      // Begin, commit or rollback failed: the connection is gone. For the caller the outcome is
      // unknown, which every operation tolerates (a retried acquire returns the same grant).
      grace.outageObserved();
      throw new BackendUnavailableException("lockdb transaction failed: " + e.getMessage(), e);
    } catch (DataAccessException e) {
      if (SessionGrace.isConnectivityFailure(e)) {
        grace.outageObserved();
        throw new BackendUnavailableException("lockdb is unreachable", e);
      }
      if (SessionGrace.isTimeout(e)) {
        throw new BackendUnavailableException("lockdb did not answer in time", e);
      }
      throw e;
    }
  }

  private static Optional<UUID> parse(SessionId sessionId) {
    try {
      return Optional.of(UUID.fromString(sessionId.value()));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static EntryRow entryRow(java.sql.ResultSet rs, int n) throws java.sql.SQLException {
    Timestamp expires = rs.getTimestamp("expires_at");
    return new EntryRow(
        rs.getObject("session_id", UUID.class),
        rs.getString("owner"),
        rs.getLong("token"),
        rs.getTimestamp("acquired_at").toInstant(),
        expires.toInstant(),
        rs.getLong("expires_in"));
  }

  private record AcquireRow(String outcome, EntryRow granted, Long holderExpiresInMillis) {}

  private record EntryRow(
      UUID sessionId,
      String owner,
      long token,
      Instant acquiredAt,
      Instant expiresAt,
      long expiresInMillis) {

    LockGrant toGrant(LockKey key, SessionId sessionId) {
      return new LockGrant(key, owner, sessionId, new FencingToken(token), acquiredAt, expiresAt);
    }
  }

  private record Attempt(LockGrant grant, Long holderExpiresInMillis) {
    static Attempt granted(LockGrant grant) {
      return new Attempt(grant, null);
    }

    static Attempt held(Long holderExpiresInMillis) {
      return new Attempt(null, holderExpiresInMillis);
    }

    LockGrant orThrow(LockKey key) {
      if (grant == null) {
        throw new LockNotAcquiredException(key);
      }
      return grant;
    }
  }
}
