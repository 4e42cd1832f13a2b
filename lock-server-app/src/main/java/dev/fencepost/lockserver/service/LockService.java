package dev.fencepost.lockserver.service;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.fencepost.lock.FencingToken;
import dev.fencepost.lock.LockException;
import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockInfo;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.RevokeResult;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lock.SessionInfo;
import dev.fencepost.lockserver.backend.BackendUnavailableException;
import dev.fencepost.lockserver.backend.LockBackend;
import dev.fencepost.lockserver.config.LockServerProperties;
import dev.fencepost.lockserver.grant.GrantSigner;
import dev.fencepost.web.FreeText;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lock server's one entry point above the backend: validates bounds, then records what happened
 * as structured events (NFR-08) and metrics (NFR-09: tags are the operation, the outcome and the
 * backend, never a key, owner, session or token).
 */
public final class LockService implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LockService.class);

  private final LockBackend backend;
  private final LockServerProperties properties;
  private final GrantSigner signer;
  private final MeterRegistry meters;
  private final Counter revokes;
  private final WaitingAcquires waiting;

  /** How often the session and held-key gauges are read from the backend. */
  static final Duration STATS_REFRESH = Duration.ofSeconds(5);

  private final ScheduledExecutorService statsReader =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "lock-backend-stats");
            t.setDaemon(true);
            return t;
          });
  private final AtomicReference<LockBackend.BackendStats> lastStats =
      new AtomicReference<>(new LockBackend.BackendStats(0, 0));

  /**
   * Session id to its creator's principal. A session's principal never changes and session ids are
   * never reused, so an entry can only be stale by outliving its session, which the backend then
   * reports anyway; bounded so that a flood of sessions cannot grow it without limit.
   */
  private final Cache<SessionId, String> principals =
      Caffeine.newBuilder().maximumSize(100_000).build();

  /**
   * @param signer signs every grant this service hands out, whatever the backend (ADR 0135)
   */
  public LockService(
      LockBackend backend,
      LockServerProperties properties,
      GrantSigner signer,
      MeterRegistry meters) {
    this.backend = backend;
    this.properties = properties;
    this.signer = signer;
    this.meters = meters;
    this.revokes =
        Counter.builder("fencepost.lock.revokes")
            .description("Operator force-revokes (FR-08); every one is an alert")
            .tag("backend", backend.name())
            .register(meters);
    // Every bound's refusal counter at zero, so that the first 429 is an increase (ADR 0175).
    for (CapacityExceededException.Limit limit : CapacityExceededException.Limit.values()) {
      capacityRejections(limit);
    }
    this.waiting =
        new WaitingAcquires(
            properties.maxWaitingAcquires(), properties.maxWaitingAcquiresPerSession());
    Gauge.builder("fencepost.lock.acquires.waiting", waiting, WaitingAcquires::waiting)
        .description("Acquires waiting for a held key on this instance (bounded, ADR 0165)")
        .tag("backend", backend.name())
        .register(meters);
    // Read on a schedule of their own, never at scrape: with the backend down a scrape would wait
    // out the backend's timeout, fail, and take the lock server's other meters with it, the
    // outage alert's included (the lock-backend game day found it).
    statsReader.scheduleWithFixedDelay(
        this::refreshStats, 0, STATS_REFRESH.toMillis(), TimeUnit.MILLISECONDS);
    Gauge.builder("fencepost.lock.sessions.active", this, s -> lastStats.get().activeSessions())
        .description("Sessions not yet expired or closed")
        .tag("backend", backend.name())
        .register(meters);
    Gauge.builder("fencepost.lock.locks.held", this, s -> lastStats.get().heldLocks())
        .description("Keys held by a live session")
        .tag("backend", backend.name())
        .register(meters);
  }

  public String backendName() {
    return backend.name();
  }

  public SessionInfo createSession(String owner, Duration ttl) {
    return createSession(owner, null, ttl);
  }

  /**
   * Creates a session owned by {@code principal} (the authenticated caller; null records none):
   * only it may use the session afterwards (ADR 0133).
   */
  public SessionInfo createSession(String owner, String principal, Duration ttl) {
    requireText("owner", owner);
    if (principal != null) {
      // The token's subject, bounded like every other name we store (lock_session.principal).
      requireText("principal", principal);
    }
    if (ttl.compareTo(properties.minTtl()) < 0 || ttl.compareTo(properties.maxTtl()) > 0) {
      throw new InvalidLockRequestException(
          "ttlMillis must be between "
              + properties.minTtl().toMillis()
              + " and "
              + properties.maxTtl().toMillis());
    }
    // A read of the store, not an in-process count: the cap is on the sessions every instance
    // keeps alive. Instances creating at the same moment may overshoot it by those creates.
    if (backend.stats().activeSessions() >= properties.maxSessions()) {
      throw refused(
          CapacityExceededException.Limit.SESSIONS,
          properties.maxSessions(),
          "session_create",
          null);
    }
    SessionInfo session =
        timed("session_create", () -> backend.createSession(owner, principal, ttl));
    if (principal != null) {
      principals.put(session.sessionId(), principal);
    }
    log.atInfo()
        .addKeyValue("event", "lock.session.created")
        .addKeyValue("sessionId", session.sessionId().value())
        .addKeyValue("owner", owner)
        .addKeyValue("principal", principal)
        .addKeyValue("ttlMillis", ttl.toMillis())
        .log("session created");
    return session;
  }

  public SessionInfo keepAlive(SessionId sessionId) {
    try {
      return timed("keepalive", () -> backend.keepAlive(sessionId));
    } catch (LockException e) {
      keepAliveRejected(sessionId, e);
      throw e;
    }
  }

  private static void keepAliveRejected(SessionId sessionId, LockException e) {
    log.atInfo()
        .addKeyValue("event", "lock.session.keepalive_rejected")
        .addKeyValue("sessionId", sessionId.value())
        .addKeyValue("code", e.code())
        .log("keepalive rejected: {}", e.getMessage());
  }

  /**
   * {@link #keepAlive} without holding the caller's thread while the backend works (ADR 0229): the
   * future completes on the thread the backend finishes on, with the session or the failure {@code
   * keepAlive} would throw, recorded and logged as it would be.
   */
  public CompletableFuture<SessionInfo> keepAliveAsync(SessionId sessionId) {
    long start = System.nanoTime();
    CompletableFuture<SessionInfo> answer;
    try {
      answer = backend.keepAliveAsync(sessionId);
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    return answer.whenComplete(
        (info, thrown) -> {
          RuntimeException failure = unwrap(thrown);
          record("keepalive", start, failure);
          if (failure instanceof LockException e) {
            keepAliveRejected(sessionId, e);
          }
        });
  }

  /** The exception a failed future carries, as the synchronous call would have thrown it. */
  public static RuntimeException unwrap(Throwable thrown) {
    Throwable t = thrown;
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    if (t == null || t instanceof RuntimeException) {
      return (RuntimeException) t;
    }
    return new IllegalStateException(t);
  }

  public void closeSession(SessionId sessionId) {
    timed(
        "session_close",
        () -> {
          backend.closeSession(sessionId);
          return null;
        });
    log.atInfo()
        .addKeyValue("event", "lock.session.closed")
        .addKeyValue("sessionId", sessionId.value())
        .log("session closed; its locks are released");
  }

  public LockGrant acquire(LockKey key, SessionId sessionId, Duration wait) {
    if (wait.isNegative() || wait.compareTo(properties.maxWait()) > 0) {
      throw new InvalidLockRequestException(
          "waitMillis must be between 0 and " + properties.maxWait().toMillis());
    }
    if (wait.isZero()) {
      return acquireNow(key, sessionId, wait);
    }
    // Only an acquire that may wait holds its request thread for long; one that does not is as
    // short as a keepalive and is never refused here.
    CapacityExceededException.Limit full = waiting.enter(sessionId);
    if (full != null) {
      long max =
          full == CapacityExceededException.Limit.WAITING_ACQUIRES
              ? waiting.max()
              : waiting.maxPerSession();
      throw refused(full, max, "acquire", sessionId);
    }
    try {
      return acquireNow(key, sessionId, wait);
    } finally {
      waiting.leave(sessionId);
    }
  }

  private LockGrant acquireNow(LockKey key, SessionId sessionId, Duration wait) {
    try {
      LockGrant grant = timed("acquire", () -> backend.acquire(key, sessionId, wait));
      log.atInfo()
          .addKeyValue("event", "lock.acquired")
          .addKeyValue("key", key.value())
          .addKeyValue("owner", grant.owner())
          .addKeyValue("sessionId", sessionId.value())
          .addKeyValue("token", grant.token().value())
          .log("lock granted");
      return signer.sign(grant);
    } catch (LockException e) {
      // Contention is a normal outcome (UC-02): debug, not a warning.
      log.atDebug()
          .addKeyValue("event", "lock.acquire_rejected")
          .addKeyValue("key", key.value())
          .addKeyValue("sessionId", sessionId.value())
          .addKeyValue("code", e.code())
          .log("acquire not granted: {}", e.getMessage());
      throw e;
    }
  }

  public LockGrant renew(LockKey key, SessionId sessionId, FencingToken token) {
    try {
      // A renewed grant gets a fresh signature: its expiry moved on (ADR 0135).
      return signer.sign(timed("renew", () -> backend.renew(key, sessionId, token)));
    } catch (LockLostException e) {
      log.atWarn()
          .addKeyValue("event", "lock.renew_rejected")
          .addKeyValue("key", key.value())
          .addKeyValue("sessionId", sessionId.value())
          .addKeyValue("token", token.value())
          .addKeyValue("reason", e.reason().name())
          .log("renew rejected: {}", e.getMessage());
      throw e;
    }
  }

  public void release(LockKey key, SessionId sessionId, FencingToken token) {
    try {
      timed(
          "release",
          () -> {
            backend.release(key, sessionId, token);
            return null;
          });
      log.atInfo()
          .addKeyValue("event", "lock.released")
          .addKeyValue("key", key.value())
          .addKeyValue("sessionId", sessionId.value())
          .addKeyValue("token", token.value())
          .log("lock released");
    } catch (LockException e) {
      log.atWarn()
          .addKeyValue("event", "lock.release_rejected")
          .addKeyValue("key", key.value())
          .addKeyValue("sessionId", sessionId.value())
          .addKeyValue("token", token.value())
          .addKeyValue("code", e.code())
          .log("release rejected: {}", e.getMessage());
      throw e;
    }
  }

  /**
   * Refuses {@code principal} a session another principal created: the call would otherwise keep
   * alive, close, or take, renew and release locks through someone else's session. A session that
   * does not exist (or records no principal) passes here and meets the operation's own answer.
   *
   * @throws SessionNotOwnedException when the session is another principal's
   */
  public void requireOwner(SessionId sessionId, String principal, String operation) {
    String owner = principalOf(sessionId).orElse(null);
    if (owner != null && !owner.equals(principal)) {
      log.atWarn()
          .addKeyValue("event", "lock.session.not_owner")
          .addKeyValue("operation", operation)
          .addKeyValue("sessionId", sessionId.value())
          .addKeyValue("principal", principal)
          .addKeyValue("sessionPrincipal", owner)
          .log("call on another caller's session refused");
      throw new SessionNotOwnedException(sessionId);
    }
  }

  /** The principal that created {@code sessionId}, if it is live and recorded one. */
  public Optional<String> principalOf(SessionId sessionId) {
    String known = principals.getIfPresent(sessionId);
    if (known != null) {
      return Optional.of(known);
    }
    Optional<String> stored = backend.sessionPrincipal(sessionId);
    stored.ifPresent(p -> principals.put(sessionId, p));
    return stored;
  }

  /** Inspection for operators. Never a correctness input (FR-07). */
  public LockInfo inspect(LockKey key) {
    return timed("inspect", () -> backend.inspect(key));
  }

  public RevokeResult revoke(LockKey key, String operator, String reason) {
    requireText("operator", operator);
    requireText("reason", reason, 2000);
    RevokeResult result = timed("revoke", () -> backend.revoke(key, operator, reason));
    revokes.increment();
    // An alert filters on this event name (FR-08, UC-06).
    log.atWarn()
        .addKeyValue("event", "lock.revoked")
        .addKeyValue("key", key.value())
        .addKeyValue("operator", operator)
        .addKeyValue("reason", reason)
        .addKeyValue(
            "revokedToken", result.revokedToken() == null ? null : result.revokedToken().value())
        .addKeyValue("revokedOwner", result.revokedOwner())
        .addKeyValue("alert", true)
        .log("lock force-revoked by {}", operator);
    return result;
  }

  private Counter capacityRejections(CapacityExceededException.Limit limit) {
    return Counter.builder("fencepost.lock.capacity.rejections")
        .description("Requests refused with 429 because a capacity bound is reached (ADR 0165)")
        .tag("limit", limit.tag())
        .tag("backend", backend.name())
        .register(meters);
  }

  /**
   * The refusal of a keepalive stream beyond {@code fencepost.lock.max-keepalive-streams} (ADR
   * 0224), logged and counted as every capacity refusal is; the caller throws it.
   */
  public CapacityExceededException keepaliveStreamsFull(SessionId sessionId) {
    return refused(
        CapacityExceededException.Limit.KEEPALIVE_STREAMS,
        properties.maxKeepaliveStreams(),
        "keepalive_stream",
        sessionId);
  }

  /** Logs and counts a capacity refusal; the caller throws what this returns. */
  private CapacityExceededException refused(
      CapacityExceededException.Limit limit, long max, String operation, SessionId sessionId) {
    // Tags: the bound and the backend, a fixed few values; the session goes to the log only.
    capacityRejections(limit).increment();
    log.atWarn()
        .addKeyValue("event", "lock.capacity_rejected")
        .addKeyValue("limit", limit.tag())
        .addKeyValue("max", max)
        .addKeyValue("operation", operation)
        .addKeyValue("sessionId", sessionId == null ? null : sessionId.value())
        .log("{} refused: {} at its maximum of {}", operation, limit.tag(), max);
    return new CapacityExceededException(limit, max, properties.capacityRetryAfter());
  }

  private void refreshStats() {
    try {
      lastStats.set(backend.stats());
    } catch (RuntimeException e) {
      // The backend is unavailable: keep the last known value; the operations' outcomes say why.
    }
  }

  /** Stops the backend statistics reader. */
  @Override
  public void close() {
    statsReader.shutdownNow();
  }

  private <T> T timed(String operation, Supplier<T> call) {
    long start = System.nanoTime();
    RuntimeException failure = null;
    try {
      return call.get();
    } catch (RuntimeException e) {
      failure = e;
      throw e;
    } finally {
      record(operation, start, failure);
    }
  }

  /** Times one operation begun at {@code start} by its outcome; a store that is down is logged. */
  private void record(String operation, long start, RuntimeException failure) {
    String outcome = "ok";
    if (failure instanceof LockException e) {
      outcome = e.code().toLowerCase();
    } else if (failure instanceof BackendUnavailableException) {
      outcome = "backend_unavailable";
      log.atWarn()
          .addKeyValue("event", "lock.backend_unavailable")
          .addKeyValue("operation", operation)
          .addKeyValue("backend", backend.name())
          .log("backend unavailable: {}", failure.getMessage());
    } else if (failure != null) {
      outcome = "error";
    }
    Timer.builder("fencepost.lock.operations")
        .description("Lock server operations by outcome")
        .tag("operation", operation)
        .tag("outcome", outcome)
        .tag("backend", backend.name())
        .register(meters)
        .record(Duration.ofNanos(System.nanoTime() - start));
  }

  private void requireText(String field, String value) {
    requireText(field, value, properties.maxTextLength());
  }

  private static void requireText(String field, String value, int max) {
    if (value == null || value.isBlank() || value.length() > max) {
      throw new InvalidLockRequestException(field + " must be 1.." + max + " non-blank characters");
    }
    FreeText.requireNoControlCharacters(field, value);
  }
}
