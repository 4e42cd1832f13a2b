package dev.fencepost.lockserver.backend.etcd;

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
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseTimeToLiveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.PutOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The etcd lock backend (FR-09, FR-10), the recommended one: etcd's raft log decides every grant,
 * and its cluster-wide revision is the token source, so tokens cannot repeat or go backwards for as
 * long as the cluster's data lives (INV-04), across leader changes and member restarts alike.
 *
 * <p>How the {@link LockBackend} rules map onto etcd (the key layout is in {@link EtcdKeys}):
 *
 * <ul>
 *   <li><b>Session = lease.</b> {@link #createSession} grants a lease of the session's TTL; its id
 *       (hex) is the session id. {@link #keepAlive} is one lease keepalive, a request on one of the
 *       few keepalive streams this instance keeps open ({@link LeaseKeepAlives}, ADR 0228). When
 *       etcd expires or revokes the lease it deletes, in the same raft entry, every key attached to
 *       it: every grant and waiter of the session (FR-04, ADR 0010: expiry is etcd's decision,
 *       never a lock-server timer).
 *   <li><b>Acquire = one transaction</b>: if the lock key does not exist ({@code CreateRevision ==
 *       0}), put it on the session's lease; else read it. The token is that transaction's revision,
 *       which is the key's CreateRevision and ModRevision, because nothing writes the key while the
 *       grant lives (ADR 0011, INV-06). The same session acquiring again finds its own lease on the
 *       key and gets the same token.
 *   <li><b>Renew</b> touches only the lease and then confirms the key still carries the token as
 *       ModRevision and the session's lease (FR-06). <b>Release</b> is a transaction that deletes
 *       the key only if its ModRevision is still the token and it is the session's (FR-05): by the
 *       value this instance wrote for that grant, or else by a read of the key's lease first (ADR
 *       0227).
 *   <li><b>Waiting</b> keeps a waiter key on the waiter's lease (what inspection counts), written
 *       by its first failed attempt and deleted by its granting one, in their own transactions (ADR
 *       0215), and sleeps in the key's first-in-first-out queue on this instance, under one watch
 *       of the lock key shared by the key's waiters and opened from a revision no later than the
 *       one after the failed attempt, so a delete cannot slip between attempt and watch; a delete
 *       wakes the first waiter only ({@link EtcdWaits}, ADR 0214); no polling.
 *   <li><b>Revoke</b> deletes the key and writes the audit record in one transaction (FR-08,
 *       FR-30). The next grant's token is a later revision, so higher by construction (INV-04).
 * </ul>
 *
 * <p>Every etcd call is bounded by the configured call timeout; transient failures of calls that
 * are safe to repeat are retried within it, and anything else surfaces as {@link
 * BackendUnavailableException}. jetcd completes futures and watch callbacks on its event-loop
 * threads: this class never waits there; a watch callback only wakes a request thread.
 */
public final class EtcdLockBackend implements LockBackend {

  private static final Logger log = LoggerFactory.getLogger(EtcdLockBackend.class);

  private static final int REVOKE_ATTEMPTS = 5;

  private final KV kv;
  private final Lease leases;
  private final EtcdKeys keys;
  private final EtcdCalls calls;
  private final Clock clock;
  private final KnownSessions known = new KnownSessions();
  private final KnownGrants grants = new KnownGrants();
  private final EtcdWaits waits;
  private final LeaseKeepAlives keepAlives;
  private final AtomicLong attempts = new AtomicLong();
  private volatile Runnable afterFailedAttempt = () -> {};

  /**
   * @param client a jetcd client built by {@link EtcdClients}, so that every call but a stream (a
   *     watch, a keepalive stream) carries a gRPC deadline; owned by the caller
   * @param keyPrefix where this lock service's keys live, e.g. {@code /fencepost/}
   * @param callTimeout the deadline of each RPC, as configured on the client ({@link EtcdClients});
   *     this instance applies it to each keepalive on its keepalive stream
   * @param operationTimeout the bound on each backend operation, retries included
   * @param clock the lock server's clock, used only for the informational {@code acquiredAt} and to
   *     turn etcd's remaining lease TTL into an instant
   */
  public EtcdLockBackend(
      Client client,
      String keyPrefix,
      Duration callTimeout,
      Duration operationTimeout,
      Clock clock) {
    this.kv = client.getKVClient();
    this.leases = client.getLeaseClient();
    this.waits = new EtcdWaits(client.getWatchClient());
    this.keepAlives = LeaseKeepAlives.on(client, callTimeout);
    this.keys = new EtcdKeys(keyPrefix);
    this.calls = new EtcdCalls(operationTimeout);
    this.clock = clock;
  }

  @Override
  public String name() {
    return "etcd";
  }

  // --- Sessions ---------------------------------------------------------------------------

  @Override
  public SessionInfo createSession(String owner, String principal, Duration ttl) {
    long deadline = calls.deadline();
    Instant now = clock.instant();
    // etcd leases count whole seconds and raise anything below their minimum (1.5 election
    // timeouts); the session reports the TTL etcd actually granted.
    long seconds = Math.max(1, (ttl.toMillis() + 999) / 1000);
    var granted = calls.idempotent("session_create", deadline, () -> leases.grant(seconds));
    long leaseId = granted.getID();
    Duration effective = Duration.ofSeconds(granted.getTTL());
    try {
      calls.idempotent(
          "session_create",
          deadline,
          () ->
              kv.put(
                  keys.session(leaseId),
                  EtcdValues.write(new EtcdValues.Session(owner, effective.toMillis(), principal)),
                  PutOption.builder().withLeaseId(leaseId).build()));
    } catch (RuntimeException e) {
      // The lease without its record is unusable; let it go (best effort, not awaited) rather
      // than leave it to its TTL.
      leases.revoke(leaseId);
      throw e instanceof EtcdCalls.LeaseNotFound
          ? new BackendUnavailableException("the new lease vanished before use", e)
          : e;
    }
    // The lease was granted after `now`, so now + TTL is a lower bound of its expiry.
    known.remember(leaseId, owner, now.plus(effective));
    return new SessionInfo(EtcdKeys.sessionId(leaseId), owner, effective, now.plus(effective));
  }

  @Override
  public Optional<String> sessionPrincipal(SessionId sessionId) {
    Optional<Long> leaseId = EtcdKeys.leaseId(sessionId);
    if (leaseId.isEmpty()) {
      return Optional.empty();
    }
    // The record lives on the session's lease: gone with the session.
    return sessionRecord(leaseId.get(), calls.deadline()).map(EtcdValues.Session::principal);
  }

  @Override
  public SessionInfo keepAlive(SessionId sessionId) {
    long leaseId = EtcdKeys.leaseId(sessionId).orElseThrow(() -> notFound(sessionId));
    long deadline = calls.deadline();
    Instant sent = clock.instant();
    long ttlSeconds;
    try {
      ttlSeconds = calls.idempotent("keepalive", deadline, () -> keepAlives.keepAlive(leaseId));
    } catch (EtcdCalls.LeaseNotFound e) {
      known.forget(leaseId);
      throw notFound(sessionId);
    }
    // The owner never changes and a live lease always carries its session record (written before
    // the session id is handed out), so a session this server has seen needs no record read.
    String owner = known.owner(leaseId);
    if (owner == null) {
      owner = sessionRecord(leaseId, deadline).orElseThrow(() -> notFound(sessionId)).owner();
    }
    // The lease was refreshed after `sent`, so this expiry is a lower bound of etcd's own.
    Instant expiresAt = sent.plusSeconds(ttlSeconds);
    known.remember(leaseId, owner, expiresAt);
    return new SessionInfo(sessionId, owner, Duration.ofSeconds(ttlSeconds), expiresAt);
  }

  @Override
  public void closeSession(SessionId sessionId) {
    Optional<Long> leaseId = EtcdKeys.leaseId(sessionId);
    if (leaseId.isEmpty()) {
      return;
    }
    known.forget(leaseId.get());
    try {
      // One raft entry revokes the lease and deletes every key on it: all grants and waiters.
      calls.idempotent("session_close", calls.deadline(), () -> leases.revoke(leaseId.get()));
    } catch (EtcdCalls.LeaseNotFound e) {
      // Already gone: closing twice, or closing an expired session, is a no-op.
    }
  }

  // --- Acquire ----------------------------------------------------------------------------

  @Override
  public LockGrant acquire(LockKey key, SessionId sessionId, Duration wait) {
    long leaseId = EtcdKeys.leaseId(sessionId).orElseThrow(() -> notFound(sessionId));
    if (wait.isZero() || wait.isNegative()) {
      return attempt(key, sessionId, leaseId, calls.deadline(), null).orThrow(key);
    }
    long waitDeadline = System.nanoTime() + wait.toNanos();
    // In the key's queue before the first attempt, so that a delete after it finds this waiter
    // (ADRs 0208 and 0214). A grant at once leaves the queue untouched but for this ticket.
    WaitQueues queues = waits.queues();
    WaitQueues.Ticket ticket = queues.join(key.value());
    boolean granted = false;
    // Written by the first attempt that finds the key held and deleted by the one that is
    // granted, inside those attempts' own transactions (ADR 0215).
    WaiterKey waiter = new WaiterKey(keys.waiter(key, UUID.randomUUID()));
    EtcdWaits.KeyWatch watch = null;
    long attemptDeadline = calls.deadline();
    try {
      while (true) {
        queues.beforeAttempt(ticket);
        Attempt attempt = attempt(key, sessionId, leaseId, attemptDeadline, waiter);
        attempts.incrementAndGet();
        if (attempt.grant() != null) {
          granted = true;
          return attempt.grant();
        }
        queues.foundHeld(ticket);
        afterFailedAttempt.run();
        long left = waitDeadline - System.nanoTime();
        if (left <= 0) {
          return attempt.orThrow(key);
        }
        // A transient failure from here on must not end a wait that still has time: the attempt
        // is safe to repeat, so retry it up to the later of the operation timeout and the wait
        // deadline.
        attemptDeadline = Math.max(calls.deadline(), waitDeadline);
        if (queues.woken(ticket)) {
          continue;
        }
        if (watch == null || waits.isBroken(watch)) {
          waits.unwatch(watch);
          watch = null; // given up: if the next line throws, the finally must not give it up again
          watch = waits.watch(key.value(), keys.lock(key), attempt.observedRevision());
        }
        queues.await(ticket, left);
        if (Thread.currentThread().isInterrupted()) {
          throw new BackendUnavailableException("interrupted while waiting for " + key, null);
        }
      }
    } finally {
      queues.leave(ticket, granted);
      waits.unwatch(watch);
      if (waiter.stored) {
        unregisterWaiter(key, waiter.key);
      }
    }
  }

  /** Test seam: acquire attempts made by waiting acquires so far. */
  long attempts() {
    return attempts.get();
  }

  /** Test seam: runs in a waiting acquire's thread after each failed attempt, before it waits. */
  void afterFailedAttempt(Runnable hook) {
    this.afterFailedAttempt = hook;
  }

  /** Test seam: the keepalive streams of this instance (ADR 0228). */
  LeaseKeepAlives keepAlives() {
    return keepAlives;
  }

  /** Test seam: the grants this instance remembers writing (ADR 0227). */
  KnownGrants grants() {
    return grants;
  }

  /** Test seam: this instance's waiting acquires and their watches. */
  EtcdWaits waits() {
    return waits;
  }

  /**
   * One put-if-absent transaction. Safe to repeat: if an earlier try committed but its answer was
   * lost, the repeat finds the session's own lease on the key and returns that grant's token.
   *
   * <p>For a waiting acquire ({@code waiter} not null) the same transaction keeps its waiter key: a
   * failed attempt writes it on the session's lease if it is not stored yet, and the granting put
   * deletes it if it is. The put of the lock key already makes every attempt, failed or not, a raft
   * entry (etcd serves a transaction as a read only when neither branch writes), so the waiter key
   * costs no entry of its own (ADR 0215).
   */
  private Attempt attempt(
      LockKey key, SessionId sessionId, long leaseId, long deadline, WaiterKey waiter) {
    Instant now = clock.instant();
    KnownSessions.Known session = known.get(leaseId, now);
    if (session == null) {
      session = readSession(sessionId, leaseId, deadline, now);
    }
    Instant expiresAt = session.expiresNoEarlierThan();
    ByteSequence lockKey = keys.lock(key);
    ByteSequence sessionKey = keys.session(leaseId);
    ByteSequence value =
        EtcdValues.write(new EtcdValues.Grant(session.owner(), sessionId.value(), now.toString()));
    List<Op> then = new ArrayList<>(2);
    then.add(Op.put(lockKey, value, PutOption.builder().withLeaseId(leaseId).build()));
    List<Op> otherwise = new ArrayList<>(3);
    otherwise.add(Op.get(lockKey, GetOption.DEFAULT));
    otherwise.add(Op.get(sessionKey, GetOption.builder().withCountOnly(true).build()));
    if (waiter != null) {
      if (waiter.stored) {
        then.add(Op.delete(waiter.key, DeleteOption.DEFAULT));
      } else {
        otherwise.add(
            Op.put(
                waiter.key,
                EtcdKeys.bytes(sessionId.value()),
                PutOption.builder().withLeaseId(leaseId).build()));
        // Until the answer says otherwise: a transaction that fails or whose answer is lost may
        // have stored it, and the acquire's end removes it then.
        waiter.stored = true;
      }
    }
    Op[] thenOps = then.toArray(Op[]::new);
    Op[] elseOps = otherwise.toArray(Op[]::new);
    TxnResponse txn;
    try {
      // The session record's existence is part of the compare, so a session closed or expired
      // since this server last saw it is found in the same revision as the grant decision.
      txn =
          calls.idempotent(
              "acquire",
              deadline,
              () ->
                  kv.txn()
                      .If(
                          new Cmp(lockKey, Cmp.Op.EQUAL, CmpTarget.createRevision(0)),
                          new Cmp(sessionKey, Cmp.Op.GREATER, CmpTarget.createRevision(0)))
                      .Then(thenOps)
                      .Else(elseOps)
                      .commit());
    } catch (EtcdCalls.LeaseNotFound e) {
      // The lease is gone, and every key on it with it.
      if (waiter != null) {
        waiter.stored = false;
      }
      known.forget(leaseId);
      throw notFound(sessionId);
    }
    if (waiter != null) {
      // The granting branch deleted the waiter key; the other one stored it (or found it stored).
      waiter.stored = !txn.isSucceeded();
    }
    long revision = txn.getHeader().getRevision();
    if (txn.isSucceeded()) {
      // The put's revision is the key's CreateRevision and ModRevision: the token (ADR 0011).
      FencingToken token = new FencingToken(revision);
      grants.remember(key, token, sessionId, value);
      return Attempt.granted(new LockGrant(key, session.owner(), sessionId, token, now, expiresAt));
    }
    if (txn.getGetResponses().get(1).getCount() == 0) {
      known.forget(leaseId);
      throw notFound(sessionId);
    }
    Optional<KeyValue> held = txn.getGetResponses().get(0).getKvs().stream().findFirst();
    if (held.isEmpty()) {
      // Unreachable: the session exists, so the failed compare was the lock key's, and the read
      // is in the same revision.
      return Attempt.held(revision);
    }
    KeyValue current = held.get();
    if (current.getLease() == leaseId) {
      // Same session again: the same grant, never a new token (the lock lifecycle,
      // docs/lock-server.md).
      EtcdValues.Grant grant = EtcdValues.read(current.getValue(), EtcdValues.Grant.class);
      FencingToken token = new FencingToken(current.getModRevision());
      grants.remember(key, token, sessionId, current.getValue());
      return Attempt.granted(
          new LockGrant(
              key, grant.owner(), sessionId, token, Instant.parse(grant.acquiredAt()), expiresAt));
    }
    return Attempt.held(revision);
  }

  /**
   * The session's owner and a lower bound of its lease's expiry, read from etcd: for a session this
   * server has not seen (created or kept alive through another lock server, or before a restart),
   * or whose known expiry has passed (it may have been kept alive elsewhere).
   */
  private KnownSessions.Known readSession(
      SessionId sessionId, long leaseId, long deadline, Instant now) {
    CompletableFuture<GetResponse> sessionRead = kv.get(keys.session(leaseId));
    CompletableFuture<LeaseTimeToLiveResponse> ttlRead =
        leases.timeToLive(leaseId, LeaseOption.DEFAULT);
    EtcdValues.Session session =
        calls
            .idempotent(
                "acquire", deadline, startedThen(sessionRead, () -> kv.get(keys.session(leaseId))))
            .getKvs()
            .stream()
            .findFirst()
            .map(found -> EtcdValues.read(found.getValue(), EtcdValues.Session.class))
            .orElseThrow(() -> notFound(sessionId));
    long remaining =
        remainingSeconds(
            calls.idempotent(
                "acquire",
                deadline,
                startedThen(ttlRead, () -> leases.timeToLive(leaseId, LeaseOption.DEFAULT))));
    if (remaining < 0) {
      known.forget(leaseId);
      throw notFound(sessionId);
    }
    Instant expiresAt = now.plusSeconds(remaining);
    known.remember(leaseId, session.owner(), expiresAt);
    return new KnownSessions.Known(session.owner(), expiresAt);
  }

  /**
   * Removes the waiter key of an acquire that ends without the granting transaction having done so:
   * out of time, failed, or granted through a repeat that found its own earlier grant.
   */
  private void unregisterWaiter(LockKey key, ByteSequence waiter) {
    try {
      calls.idempotent("acquire_wait", calls.deadline(), () -> kv.delete(waiter));
    } catch (RuntimeException e) {
      // The waiter key is on the waiter's lease and goes with its session; until then inspection
      // over-counts by one. Not worth failing an acquire whose outcome is already decided.
      log.atWarn()
          .addKeyValue("event", "lock.etcd.waiter_left")
          .addKeyValue("key", key.value())
          .log("could not remove a waiter key; it expires with its session");
    }
  }

  // --- Renew, release ---------------------------------------------------------------------

  @Override
  public LockGrant renew(LockKey key, SessionId sessionId, FencingToken token) {
    Optional<Long> lease = EtcdKeys.leaseId(sessionId);
    if (lease.isEmpty()) {
      throw new LockLostException(key, LockLostException.Reason.SESSION_LOST, "unknown session");
    }
    long leaseId = lease.get();
    long deadline = calls.deadline();
    Instant sent = clock.instant();
    // Extend and confirm in parallel (ADR 0093): success needs both the lease extended (so it was
    // alive at the keepalive) and the grant, on that lease, seen valid in the read. A key on a
    // live lease goes only by an explicit release or revoke, which a client cannot tell from one
    // landing just after a sequential confirm; and a lease that died in between fails the
    // keepalive.
    ByteSequence lockKey = keys.lock(key);
    CompletableFuture<Long> keepAlive = keepAlives.keepAlive(leaseId);
    CompletableFuture<TxnResponse> confirm = readGrant(lockKey, key, token);
    Long ttlSeconds;
    try {
      ttlSeconds =
          calls.idempotent(
              "renew", deadline, startedThen(keepAlive, () -> keepAlives.keepAlive(leaseId)));
      known.extend(leaseId, sent.plusSeconds(ttlSeconds));
    } catch (EtcdCalls.LeaseNotFound e) {
      ttlSeconds = null;
      known.forget(leaseId);
    } catch (RuntimeException e) {
      confirm.cancel(false);
      throw e;
    }
    TxnResponse read =
        calls.idempotent(
            "renew", deadline, startedThen(confirm, () -> readGrant(lockKey, key, token)));
    Optional<KeyValue> current = read.getGetResponses().get(0).getKvs().stream().findFirst();
    boolean stillHeld =
        current.isPresent()
            && current.get().getModRevision() == token.value()
            && current.get().getLease() == leaseId;
    if (stillHeld && ttlSeconds != null) {
      EtcdValues.Grant grant = EtcdValues.read(current.get().getValue(), EtcdValues.Grant.class);
      return new LockGrant(
          key,
          grant.owner(),
          sessionId,
          token,
          Instant.parse(grant.acquiredAt()),
          sent.plusSeconds(ttlSeconds));
    }
    if (read.getGetResponses().get(1).getCount() > 0) {
      throw new LockLostException(key, LockLostException.Reason.REVOKED, "revoked by an operator");
    }
    if (ttlSeconds == null) {
      throw new LockLostException(key, LockLostException.Reason.SESSION_LOST, "session expired");
    }
    throw new LockLostException(key, LockLostException.Reason.NOT_HELD, "no longer the holder");
  }

  /** The lock key and whether this grant was revoked, from one revision. */
  private CompletableFuture<TxnResponse> readGrant(
      ByteSequence lockKey, LockKey key, FencingToken token) {
    return kv.txn()
        .Then(
            Op.get(lockKey, GetOption.DEFAULT),
            Op.get(keys.revokedGrant(key, token), GetOption.builder().withCountOnly(true).build()))
        .commit();
  }

  @Override
  public void release(LockKey key, SessionId sessionId, FencingToken token) {
    long leaseId = EtcdKeys.leaseId(sessionId).orElseThrow(() -> new NotHolderException(key));
    ByteSequence lockKey = keys.lock(key);
    Cmp version = new Cmp(lockKey, Cmp.Op.EQUAL, CmpTarget.modRevision(token.value()));
    Cmp[] compares;
    KnownGrants.Written written = grants.get(key, token);
    if (written != null && written.sessionId().equals(sessionId)) {
      // The value this server wrote for the caller's session at this token: comparing it with the
      // key's value checks the session inside etcd, in the delete's own revision, so no read is
      // needed first (ADR 0227).
      compares =
          new Cmp[] {version, new Cmp(lockKey, Cmp.Op.EQUAL, CmpTarget.value(written.value()))};
    } else {
      // ModRevision == token pins one version of the key, and a version's lease never changes; so
      // checking the lease on the read and the ModRevision in the delete's compare is one
      // compare-and-delete on (key, session, token).
      Optional<KeyValue> current =
          calls.idempotent("release", calls.deadline(), () -> kv.get(lockKey)).getKvs().stream()
              .findFirst();
      if (current.isEmpty()
          || current.get().getModRevision() != token.value()
          || current.get().getLease() != leaseId) {
        throw new NotHolderException(key);
      }
      compares = new Cmp[] {version};
    }
    TxnResponse deleted =
        calls.once(
            "release",
            () -> kv.txn().If(compares).Then(Op.delete(lockKey, DeleteOption.DEFAULT)).commit());
    // Released or not, the grant at this token is over or was never this session's.
    grants.forget(key, token);
    if (!deleted.isSucceeded()) {
      throw new NotHolderException(key);
    }
    // This instance's first waiter at once, without waiting for the watch's delete event (which
    // then wakes nobody here while that waiter has yet to attempt, ADR 0212).
    waits.queues().wake(key.value());
  }

  // --- Inspect, revoke, stats -------------------------------------------------------------

  @Override
  public LockInfo inspect(LockKey key) {
    long deadline = calls.deadline();
    Instant now = clock.instant();
    // One read-only transaction: the holder and the waiter count from the same revision.
    TxnResponse read =
        calls.idempotent(
            "inspect",
            deadline,
            () ->
                kv.txn()
                    .Then(
                        Op.get(keys.lock(key), GetOption.DEFAULT),
                        Op.get(
                            keys.waiters(key),
                            GetOption.builder().isPrefix(true).withCountOnly(true).build()))
                    .commit());
    int waiters = (int) read.getGetResponses().get(1).getCount();
    Optional<KeyValue> held = read.getGetResponses().get(0).getKvs().stream().findFirst();
    if (held.isEmpty()) {
      return LockInfo.free(key, waiters);
    }
    KeyValue current = held.get();
    EtcdValues.Grant grant = EtcdValues.read(current.getValue(), EtcdValues.Grant.class);
    long leaseId = current.getLease();
    long remaining =
        remainingSeconds(
            calls.idempotent(
                "inspect", deadline, () -> leases.timeToLive(leaseId, LeaseOption.DEFAULT)));
    // A negative TTL means etcd has expired the lease and is about to delete the key; until it
    // has, the key is held by etcd's own account (ADR 0010), just with no time left.
    return new LockInfo(
        key,
        true,
        grant.owner(),
        SessionId.of(grant.sessionId()),
        new FencingToken(current.getModRevision()),
        Instant.parse(grant.acquiredAt()),
        now.plusSeconds(Math.max(0, remaining)),
        waiters);
  }

  @Override
  public RevokeResult revoke(LockKey key, String operator, String reason) {
    ByteSequence lockKey = keys.lock(key);
    for (int attempt = 1; attempt <= REVOKE_ATTEMPTS; attempt++) {
      long deadline = calls.deadline();
      Optional<KeyValue> current =
          calls.idempotent("revoke", deadline, () -> kv.get(lockKey)).getKvs().stream().findFirst();
      String at = clock.instant().toString();
      if (current.isEmpty()) {
        // Audited all the same: the operator acted, and the record says the key was free.
        EtcdValues.Audit audit =
            new EtcdValues.Audit("REVOKE", key.value(), operator, reason, null, null, null, at);
        TxnResponse txn =
            calls.once(
                "revoke",
                () ->
                    kv.txn()
                        .If(new Cmp(lockKey, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                        .Then(
                            Op.put(
                                keys.revokedFreeKey(key, UUID.randomUUID()),
                                EtcdValues.write(audit),
                                PutOption.DEFAULT))
                        .commit());
        if (txn.isSucceeded()) {
          return new RevokeResult(key, null, null);
        }
        continue;
      }
      KeyValue held = current.get();
      FencingToken token = new FencingToken(held.getModRevision());
      EtcdValues.Grant grant = EtcdValues.read(held.getValue(), EtcdValues.Grant.class);
      EtcdValues.Audit audit =
          new EtcdValues.Audit(
              "REVOKE",
              key.value(),
              operator,
              reason,
              token.value(),
              grant.owner(),
              grant.sessionId(),
              at);
      // Delete and audit in one transaction: there is never a revoke without its record.
      TxnResponse txn =
          calls.once(
              "revoke",
              () ->
                  kv.txn()
                      .If(new Cmp(lockKey, Cmp.Op.EQUAL, CmpTarget.modRevision(token.value())))
                      .Then(
                          Op.delete(lockKey, DeleteOption.DEFAULT),
                          Op.put(
                              keys.revokedGrant(key, token),
                              EtcdValues.write(audit),
                              PutOption.DEFAULT))
                      .commit());
      if (txn.isSucceeded()) {
        grants.forget(key, token);
        waits.queues().wake(key.value());
        // The next grant is a put at a later revision than this delete: higher by construction.
        return new RevokeResult(key, token, grant.owner());
      }
      // The key changed between read and delete (released, expired, re-acquired): look again.
    }
    throw new BackendUnavailableException(
        "the lock key kept changing during revoke; try again", null);
  }

  @Override
  public BackendStats stats() {
    GetOption count = GetOption.builder().isPrefix(true).withCountOnly(true).build();
    TxnResponse read =
        calls.idempotent(
            "stats",
            calls.deadline(),
            () ->
                kv.txn()
                    .Then(Op.get(keys.sessions(), count), Op.get(keys.locks(), count))
                    .commit());
    return new BackendStats(
        read.getGetResponses().get(0).getCount(), read.getGetResponses().get(1).getCount());
  }

  // --- Restore ----------------------------------------------------------------------------

  /**
   * Advances etcd's revision until it exceeds {@code floor}, so that every token issued from now on
   * is higher than {@code floor} (INV-04, ADR 0016). For the restore procedure: a cluster restored
   * from a backup has rewound its revision and would otherwise issue tokens that guards have
   * already seen; the operator passes the highest fence either guard holds. Each write of a scratch
   * key under the prefix advances the revision by one; idempotent, and a no-op when the revision is
   * already past.
   *
   * @return the revision etcd reached, greater than {@code floor}
   */
  public long advanceRevisionPast(long floor) {
    ByteSequence scratch = keys.revisionFloor();
    ByteSequence value = EtcdKeys.bytes(Long.toString(floor));
    long revision =
        calls
            .idempotent("revision_floor", calls.deadline(), () -> kv.get(scratch))
            .getHeader()
            .getRevision();
    long start = revision;
    while (revision <= floor) {
      // Writes in flight at once: enough to close a gap of millions in minutes, few enough not to
      // swamp a cluster that is just coming back.
      int batch = (int) Math.min(64, floor - revision + 1);
      List<CompletableFuture<io.etcd.jetcd.kv.PutResponse>> puts = new ArrayList<>(batch);
      for (int i = 0; i < batch; i++) {
        puts.add(kv.put(scratch, value));
      }
      for (CompletableFuture<io.etcd.jetcd.kv.PutResponse> put : puts) {
        CompletableFuture<io.etcd.jetcd.kv.PutResponse> started = put;
        revision =
            Math.max(
                revision,
                calls
                    .idempotent(
                        "revision_floor",
                        calls.deadline(),
                        startedThen(started, () -> kv.put(scratch, value)))
                    .getHeader()
                    .getRevision());
      }
    }
    log.atWarn()
        .addKeyValue("event", "lock.etcd.revision_advanced")
        .addKeyValue("floor", floor)
        .addKeyValue("from", start)
        .addKeyValue("to", revision)
        .log("etcd revision advanced past the configured floor; new tokens exceed it");
    return revision;
  }

  // --- Helpers ----------------------------------------------------------------------------

  private Optional<EtcdValues.Session> sessionRecord(long leaseId, long deadline) {
    return calls
        .idempotent("keepalive", deadline, () -> kv.get(keys.session(leaseId)))
        .getKvs()
        .stream()
        .findFirst()
        .map(found -> EtcdValues.read(found.getValue(), EtcdValues.Session.class));
  }

  /**
   * A call for {@link EtcdCalls#idempotent} whose first attempt is a request already in flight
   * (started in parallel with another), and whose retries are fresh requests.
   */
  private static <T> Supplier<CompletableFuture<T>> startedThen(
      CompletableFuture<T> started, Supplier<CompletableFuture<T>> fresh) {
    AtomicBoolean used = new AtomicBoolean();
    return () -> used.compareAndSet(false, true) ? started : fresh.get();
  }

  /**
   * Whole seconds left on a lease by etcd's account; negative once it is gone. Clamped to the
   * granted TTL because etcd before 3.4.32/3.5.14 can answer a nonsense TTL while the leader
   * changes (etcd PR #17705), and no lease has more time left than it was granted.
   */
  private static long remainingSeconds(LeaseTimeToLiveResponse response) {
    return Math.min(response.getTTL(), response.getGrantedTTL());
  }

  private static SessionNotFoundException notFound(SessionId sessionId) {
    return new SessionNotFoundException(sessionId);
  }

  /** A waiting acquire's key under {@code waiters/}, and whether etcd may hold it now. */
  private static final class WaiterKey {
    private final ByteSequence key;
    private boolean stored;

    private WaiterKey(ByteSequence key) {
      this.key = key;
    }
  }

  /**
   * One acquire attempt's outcome.
   *
   * @param grant the grant, or null if another session holds the key
   * @param observedRevision the store revision at which the key was seen held
   */
  private record Attempt(LockGrant grant, long observedRevision) {
    static Attempt granted(LockGrant grant) {
      return new Attempt(grant, 0);
    }

    static Attempt held(long observedRevision) {
      return new Attempt(null, observedRevision);
    }

    LockGrant orThrow(LockKey key) {
      if (grant == null) {
        throw new LockNotAcquiredException(key);
      }
      return grant;
    }
  }
}
