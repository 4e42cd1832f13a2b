package dev.fencepost.lock.client.impl;

import dev.fencepost.lock.InvalidLockKeyException;
import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.LockLostException.Reason;
import dev.fencepost.lock.LockNotAcquiredException;
import dev.fencepost.lock.LockServiceUnavailableException;
import dev.fencepost.lock.NotHolderException;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lock.SessionInfo;
import dev.fencepost.lock.SessionNotFoundException;
import dev.fencepost.lock.client.HeldLock;
import dev.fencepost.lock.client.LockClientMetrics;
import dev.fencepost.lock.client.LockClientMetrics.AcquireOutcome;
import dev.fencepost.lock.client.LockClientMetrics.HeartbeatOutcome;
import dev.fencepost.lock.client.LockLostListener;
import dev.fencepost.lock.client.LockRequestRejectedException;
import dev.fencepost.lock.client.LockTemplate;
import dev.fencepost.lock.client.SessionStatus;
import dev.fencepost.lock.client.StartableLockClient;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The lock client: one session, its heartbeat, the conservative deadline of every held lock, and
 * fail-closed acquire with bounded, jittered retries.
 *
 * <p><b>Session</b> (FR-04). Created by the first heartbeat after {@link #start()} (asynchronously:
 * an application whose lock server is down still starts, and fails closed per call) or by the first
 * acquire, whichever comes first. When the server no longer knows it ({@code SESSION_NOT_FOUND}),
 * every live lock of it is lost (SESSION_LOST) and a new session is created for later acquires.
 * {@link #stop()} closes it ({@code DELETE /v1/sessions/{id}}).
 *
 * <p><b>Heartbeat</b>, every TTL/3 on its own thread ({@code fencepost-lock-heartbeat}), never on
 * the caller's or an HTTP client thread, so work does not delay it: a keepalive for the session,
 * then a renew of each live lock, which both confirms the grant still exists (a revoke is noticed
 * here, REVOKED or NOT_HELD) and moves the lock's deadline forward.
 *
 * <p><b>Watchdog</b>, a second thread ({@code fencepost-lock-watchdog}) that fires EXPIRED at each
 * lock's deadline even while the heartbeat thread is stuck in a slow request (FR-12).
 *
 * <p><b>Acquire</b> (FR-27, FR-28): each attempt makes sure a session exists and sends the acquire
 * with the server-side wait. Only transport failures and 502/503/504 (and a session the server lost
 * meanwhile) are retried, at most {@code retry.max-attempts} times in all and never starting a new
 * attempt past {@code retry.max-elapsed}, with full-jitter exponential backoff between attempts.
 * Contention ({@code LOCK_HELD}) is answered by the server-side wait, not by retrying. Every other
 * failure is an exception and the caller's work does not run.
 */
public final class DefaultLockClient implements StartableLockClient, SmartLifecycle {

  /**
   * Starts before, and stops after, the application's own lifecycle beans (web server, executors,
   * schedulers), so work still running at shutdown is signalled before the session is closed.
   */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 8192;

  private static final Logger log = LoggerFactory.getLogger(DefaultLockClient.class);
  private static final int MAX_ORPHAN_CLEANUP_TRIES = 10;

  private final LockClientSettings settings;
  private final LockServerHttp http;
  private final KeepAliveStream stream;
  private final LockClientMetrics metrics;
  private final List<LockLostListener> listeners;
  private final Backoff backoff;
  private final long ttlNanos;
  private final long marginNanos;

  private final ReentrantLock sessionLock = new ReentrantLock();
  private final Set<DefaultHeldLock> live = ConcurrentHashMap.newKeySet();
  private final LocalReservations reservations = new LocalReservations();
  private final ConcurrentHashMap<LockKey, Orphan> maybeOrphaned = new ConcurrentHashMap<>();
  private final AtomicInteger consecutiveFailures = new AtomicInteger();

  private volatile ClientSession session;
  private volatile boolean everHadSession;
  private volatile String lastError;
  private volatile boolean running;
  private volatile boolean stopped;
  private ScheduledExecutorService heartbeat;
  private ScheduledExecutorService watchdog;

  public DefaultLockClient(
      LockClientSettings settings, LockClientMetrics metrics, List<LockLostListener> listeners) {
    this(settings, metrics, listeners, new Backoff(settings.retry()));
  }

  /** With an explicit {@link Backoff}, so tests can control the jitter. */
  public DefaultLockClient(
      LockClientSettings settings,
      LockClientMetrics metrics,
      List<LockLostListener> listeners,
      Backoff backoff) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.listeners = List.copyOf(listeners);
    this.backoff = Objects.requireNonNull(backoff, "backoff");
    this.http = new LockServerHttp(settings);
    this.stream = settings.keepAliveStream() ? new KeepAliveStream(settings) : null;
    this.ttlNanos = settings.ttl().toNanos();
    this.marginNanos = settings.margin().toNanos();
    metrics.activeGrants(live::size);
  }

  public LockClientSettings settings() {
    return settings;
  }

  // ---------------------------------------------------------------------------------------------
  // Lifecycle

  @Override
  public synchronized void start() {
    if (running) {
      return;
    }
    heartbeat = Executors.newSingleThreadScheduledExecutor(daemon("fencepost-lock-heartbeat"));
    watchdog = Executors.newSingleThreadScheduledExecutor(daemon("fencepost-lock-watchdog"));
    stopped = false;
    running = true;
    long interval = settings.heartbeatInterval().toNanos();
    heartbeat.scheduleAtFixedRate(this::heartbeatTick, 0, interval, TimeUnit.NANOSECONDS);
    log.atInfo()
        .addKeyValue("event", "lock.client.started")
        .addKeyValue("baseUrl", settings.baseUrl())
        .addKeyValue("owner", settings.owner())
        .addKeyValue("ttlMillis", settings.ttl().toMillis())
        .addKeyValue("heartbeatMillis", settings.heartbeatInterval().toMillis())
        .addKeyValue("safetyMargin", settings.safetyMargin())
        .log("lock client started against {}", settings.baseUrl());
  }

  @Override
  public void stop() {
    ScheduledExecutorService heartbeatToStop;
    ScheduledExecutorService watchdogToStop;
    synchronized (this) {
      if (!running) {
        return;
      }
      running = false;
      stopped = true;
      heartbeatToStop = heartbeat;
      watchdogToStop = watchdog;
    }
    heartbeatToStop.shutdownNow();
    awaitQuietly(heartbeatToStop);
    if (stream != null) {
      stream.close();
    }
    ClientSession closing;
    sessionLock.lock();
    try {
      closing = session;
      session = null;
    } finally {
      sessionLock.unlock();
    }
    // Work still running under a lock must stop before the session (and so the lock) goes away.
    for (DefaultHeldLock lock : live) {
      if (lock.lose(Reason.SESSION_LOST, "the lock client is stopping")) {
        onLost(lock, Reason.SESSION_LOST, "the lock client is stopping");
      }
    }
    if (closing != null) {
      closing.markLost();
      try {
        http.closeSession(closing.id());
        log.atInfo()
            .addKeyValue("event", "lock.session.closed")
            .addKeyValue("sessionId", closing.id().value())
            .log("lock session {} closed", closing.id());
      } catch (RuntimeException e) {
        log.atWarn()
            .addKeyValue("event", "lock.session.close_failed")
            .addKeyValue("sessionId", closing.id().value())
            .addKeyValue("error", e.getMessage())
            .log("could not close lock session {}; it expires after its TTL", closing.id());
      }
    }
    watchdogToStop.shutdownNow();
    awaitQuietly(watchdogToStop);
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }

  @Override
  public void close() {
    stop();
    http.close();
  }

  @Override
  public LockTemplate template() {
    return new DefaultLockTemplate(this, settings.defaultWait());
  }

  // ---------------------------------------------------------------------------------------------
  // Acquire

  @Override
  public HeldLock acquire(LockKey key, Duration wait) {
    return acquireOrEmpty(key, wait).orElseThrow(() -> new LockNotAcquiredException(key));
  }

  @Override
  public Optional<HeldLock> tryAcquire(LockKey key, Duration wait) {
    return acquireOrEmpty(key, wait);
  }

  private Optional<HeldLock> acquireOrEmpty(LockKey key, Duration wait) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(wait, "wait");
    if (wait.isNegative()) {
      throw new IllegalArgumentException("wait must not be negative");
    }
    ensureStarted();
    long start = System.nanoTime();
    Object ticket = new Object();
    boolean reserved;
    try {
      reserved = reservations.reserve(key, ticket, wait.toNanos());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unavailable(key, 0, start, "interrupted while waiting for another thread", e);
    }
    if (!reserved) {
      return notAcquired(key, wait, start, "held by another thread of this client");
    }
    boolean handedOver = false;
    try {
      Optional<HeldLock> result = acquireReserved(key, wait, start, ticket);
      handedOver = result.isPresent();
      return result;
    } finally {
      if (!handedOver) {
        reservations.free(key, ticket);
      }
    }
  }

  private Optional<HeldLock> acquireReserved(
      LockKey key, Duration wait, long start, Object ticket) {
    int attempt = 0;
    boolean requestMayHaveLanded = false;
    while (true) {
      attempt++;
      ClientSession s = null;
      RuntimeException failure;
      try {
        s = currentSession();
        Duration serverWait = remainingWait(wait, start);
        long sent = System.nanoTime();
        LockGrant grant;
        try {
          grant = http.acquire(key, s.id(), serverWait);
        } catch (LockServerUnreachableException e) {
          requestMayHaveLanded = true;
          throw e;
        }
        maybeOrphaned.remove(key);
        DefaultHeldLock lock = register(grant, s, sent, ticket);
        metrics.acquire(AcquireOutcome.ACQUIRED, since(start));
        log.atInfo()
            .addKeyValue("event", "lock.acquired")
            .addKeyValue("key", key.value())
            .addKeyValue("token", grant.token().value())
            .addKeyValue("sessionId", s.id().value())
            .addKeyValue("attempts", attempt)
            .addKeyValue("remainingMillis", lock.remaining().toMillis())
            .log("acquired {} with token {}", key, grant.token());
        return Optional.of(lock);
      } catch (LockNotAcquiredException e) {
        return notAcquired(key, wait, start, "held by another session");
      } catch (SessionNotFoundException e) {
        if (s != null) {
          sessionLost(s, "acquire answered SESSION_NOT_FOUND");
        }
        failure = e;
      } catch (LockServerUnreachableException e) {
        failure = e;
      } catch (LockRequestRejectedException | InvalidLockKeyException e) {
        metrics.acquire(AcquireOutcome.REJECTED, since(start));
        log.atWarn()
            .addKeyValue("event", "lock.acquire.rejected")
            .addKeyValue("key", key.value())
            .addKeyValue("code", e.code())
            .addKeyValue("error", e.getMessage())
            .log("lock server rejected acquire of {}: {}", key, e.getMessage());
        throw e;
      } catch (LockServiceUnavailableException e) {
        rememberPossibleOrphan(key, s, requestMayHaveLanded);
        metrics.acquire(AcquireOutcome.UNAVAILABLE, since(start));
        logAcquireFailed(key, attempt, start, e);
        throw e;
      }
      Duration delay = backoff.delay(attempt);
      if (!running || !backoff.mayRetry(attempt, since(start), delay)) {
        rememberPossibleOrphan(key, s, requestMayHaveLanded);
        metrics.acquire(AcquireOutcome.UNAVAILABLE, since(start));
        LockServiceUnavailableException e = unavailable(key, attempt, start, null, failure);
        logAcquireFailed(key, attempt, start, failure);
        throw e;
      }
      log.atInfo()
          .addKeyValue("event", "lock.acquire.retry")
          .addKeyValue("key", key.value())
          .addKeyValue("attempt", attempt)
          .addKeyValue("delayMillis", delay.toMillis())
          .addKeyValue("error", failure.getMessage())
          .log(
              "acquire of {} failed (attempt {}), retrying in {} ms",
              key,
              attempt,
              delay.toMillis());
      pause(delay, key, attempt, start);
    }
  }

  /**
   * An earlier attempt's acquire may have been granted with its answer lost: our session would then
   * hold the key until it dies. The heartbeat releases such a grant (see {@link #cleanUpOrphans}).
   */
  private void rememberPossibleOrphan(LockKey key, ClientSession s, boolean requestMayHaveLanded) {
    if (requestMayHaveLanded && s != null && !s.isLost()) {
      maybeOrphaned.put(key, new Orphan(s.id()));
    }
  }

  private DefaultHeldLock register(LockGrant grant, ClientSession s, long sent, Object ticket) {
    // The lease the server granted, by its own clock: expiresAt - acquiredAt. In the PostgreSQL
    // backend a lock lives as long as its session, so this can be less than the TTL.
    long lease =
        Math.min(
            s.ttlNanos(),
            Math.max(0, grant.expiresAt().toEpochMilli() - grant.acquiredAt().toEpochMilli())
                * 1_000_000L);
    long deadline = sent + lease - marginNanos;
    if (deadline - System.nanoTime() <= 0) {
      // The session was about to expire when the grant was made: extend it by a renew now rather
      // than hand out a lock that is lost on arrival.
      long renewSent = System.nanoTime();
      try {
        grant = http.renew(grant.key(), s.id(), grant.token());
        deadline = renewSent + s.ttlNanos() - marginNanos;
      } catch (RuntimeException e) {
        // Keep the expired deadline: the lock is handed over already lost, and ensureHeld says so.
      }
    }
    DefaultHeldLock lock = new DefaultHeldLock(this, grant, s, sent, deadline, ticket);
    live.add(lock);
    if (s.isLost() || session != s) {
      if (lock.lose(Reason.SESSION_LOST, "the session was lost while acquiring")) {
        onLost(lock, Reason.SESSION_LOST, "the session was lost while acquiring");
      }
    } else {
      lock.scheduleDeadlineCheck(watchdog);
      if (lease < s.ttlNanos() - settings.heartbeatInterval().toNanos()) {
        // The grant rides on the session's lease (a backend does not extend it on acquire), and
        // that lease was last extended more than a heartbeat ago: a keepalive is late. Renew now,
        // on the heartbeat thread, instead of betting the lock on the next tick. A lease extended
        // within the last heartbeat needs nothing: its deadline is the last keepalive's plus
        // ttl - margin, and the next tick renews every live lock well before it (ADR 0195).
        renewSoon(lock, s);
      }
    }
    return lock;
  }

  private void renewSoon(DefaultHeldLock lock, ClientSession s) {
    try {
      heartbeat.execute(
          () -> {
            if (running && session == s && lock.isActive()) {
              renew(lock, s);
            }
          });
    } catch (RejectedExecutionException e) {
      // Stopping: stop() signals every live lock.
    }
  }

  private Optional<HeldLock> notAcquired(LockKey key, Duration wait, long start, String why) {
    metrics.acquire(AcquireOutcome.HELD, since(start));
    // Contention is a normal outcome (UC-02): debug, not an error.
    log.atDebug()
        .addKeyValue("event", "lock.not_acquired")
        .addKeyValue("key", key.value())
        .addKeyValue("waitMillis", wait.toMillis())
        .log("{} not acquired within {} ms: {}", key, wait.toMillis(), why);
    return Optional.empty();
  }

  private void logAcquireFailed(LockKey key, int attempts, long start, RuntimeException cause) {
    log.atWarn()
        .addKeyValue("event", "lock.acquire.failed")
        .addKeyValue("key", key.value())
        .addKeyValue("attempts", attempts)
        .addKeyValue("elapsedMillis", since(start).toMillis())
        .addKeyValue("error", cause.getMessage())
        .log(
            "could not acquire {} after {} attempts; failing closed: {}",
            key,
            attempts,
            cause.getMessage());
  }

  private LockServiceUnavailableException unavailable(
      LockKey key, int attempts, long start, String why, Throwable cause) {
    return new LockServiceUnavailableException(
        "could not acquire "
            + key
            + " after "
            + attempts
            + " attempt(s) in "
            + since(start).toMillis()
            + " ms; failing closed: "
            + (why != null ? why : cause == null ? "" : cause.getMessage()),
        cause);
  }

  private void pause(Duration delay, LockKey key, int attempt, long start) {
    long until = System.nanoTime() + delay.toNanos();
    for (long left = delay.toNanos(); left > 0; left = until - System.nanoTime()) {
      LockSupport.parkNanos(this, left);
      if (Thread.interrupted()) {
        Thread.currentThread().interrupt();
        throw unavailable(key, attempt, start, "interrupted during backoff", null);
      }
    }
  }

  private static Duration remainingWait(Duration wait, long start) {
    long left = wait.toNanos() - (System.nanoTime() - start);
    return left <= 0 ? Duration.ZERO : Duration.ofMillis(TimeUnit.NANOSECONDS.toMillis(left));
  }

  private synchronized void ensureStarted() {
    if (stopped) {
      throw new LockServiceUnavailableException("the lock client has been stopped", null);
    }
    if (!running) {
      start();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Release

  void release(DefaultHeldLock lock) {
    DefaultHeldLock.ReleaseOutcome outcome = lock.markReleased();
    if (outcome == DefaultHeldLock.ReleaseOutcome.ALREADY_RELEASED) {
      return;
    }
    boolean wasHeld = outcome == DefaultHeldLock.ReleaseOutcome.WAS_HELD;
    live.remove(lock);
    LockKey key = lock.key();
    try {
      http.release(key, lock.grant().sessionId(), lock.token());
      log.atInfo()
          .addKeyValue("event", "lock.released")
          .addKeyValue("key", key.value())
          .addKeyValue("token", lock.token().value())
          .addKeyValue("heldMillis", since(lock.acquiredAtNanos()).toMillis())
          .log("released {} (token {})", key, lock.token());
    } catch (NotHolderException e) {
      // Compare-and-delete found another grant, or none: ours was gone before the work finished.
      if (wasHeld && lock.loseOnRelease("release found the grant already gone (NOT_HOLDER)")) {
        onLost(lock, Reason.NOT_HELD, "release found the grant already gone (NOT_HOLDER)");
      }
    } catch (RuntimeException e) {
      log.atWarn()
          .addKeyValue("event", "lock.release.failed")
          .addKeyValue("key", key.value())
          .addKeyValue("token", lock.token().value())
          .addKeyValue("error", e.getMessage())
          .log("could not release {}; the server frees it when the lease expires", key);
    } finally {
      reservations.free(key, lock.ticket());
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Session and heartbeat

  /** The current session, creating one (a single request, no retry) if there is none. */
  private ClientSession currentSession() {
    ClientSession s = session;
    if (s != null) {
      return s;
    }
    sessionLock.lock();
    try {
      s = session;
      if (s != null) {
        return s;
      }
      if (!running) {
        throw new LockServiceUnavailableException("the lock client is not running", null);
      }
      long sent = System.nanoTime();
      SessionInfo info = http.createSession(settings.owner(), settings.ttl());
      s =
          new ClientSession(
              info.sessionId(), sent, Math.min(ttlNanos, Math.max(0, info.ttl().toNanos())));
      session = s;
      boolean recreated = everHadSession;
      everHadSession = true;
      log.atInfo()
          .addKeyValue("event", "lock.session.created")
          .addKeyValue("sessionId", info.sessionId().value())
          .addKeyValue("ttlMillis", info.ttl().toMillis())
          .addKeyValue("owner", settings.owner())
          .addKeyValue("recreated", recreated)
          .log("lock session {} created", info.sessionId());
      return s;
    } finally {
      sessionLock.unlock();
    }
  }

  private void heartbeatTick() {
    try {
      if (!running) {
        return;
      }
      ClientSession s = session;
      if (s == null) {
        ensureSessionFromHeartbeat();
        return;
      }
      long sent = System.nanoTime();
      try {
        keepAlive(s.id());
        s.confirm(sent);
        metrics.heartbeat(HeartbeatOutcome.OK, since(sent));
        heartbeatSucceeded(s);
      } catch (SessionNotFoundException e) {
        metrics.heartbeat(HeartbeatOutcome.SESSION_LOST, since(sent));
        sessionLost(s, "keepalive answered SESSION_NOT_FOUND");
        ensureSessionFromHeartbeat();
        return;
      } catch (RuntimeException e) {
        metrics.heartbeat(HeartbeatOutcome.FAILED, since(sent));
        heartbeatFailed(s.id(), "lock.heartbeat.failed", e);
        return;
      }
      for (DefaultHeldLock lock : live) {
        if (lock.session() == s && lock.isActive() && !renew(lock, s)) {
          return;
        }
      }
      cleanUpOrphans(s);
    } catch (RuntimeException e) {
      // Never let an exception cancel the periodic task.
      log.atError()
          .addKeyValue("event", "lock.heartbeat.error")
          // The cause is ECS's `error` object; an `error` key as well drops the event.
          .setCause(e)
          .log("unexpected heartbeat error");
    }
  }

  /**
   * One keepalive: over the session's stream when it can serve it (ADR 0224), else as a request.
   * Either way the deadline counts from the tick's start, before whichever was sent.
   */
  private void keepAlive(SessionId id) {
    if (stream == null || stream.keepAlive(id).isEmpty()) {
      http.keepAlive(id);
    }
  }

  /** Renews one lock; false if the session turned out to be lost (stop renewing its locks). */
  private boolean renew(DefaultHeldLock lock, ClientSession s) {
    long sent = System.nanoTime();
    try {
      LockGrant renewed = http.renew(lock.key(), s.id(), lock.token());
      lock.confirmed(sent, s.ttlNanos(), marginNanos, renewed);
    } catch (LockLostException e) {
      if (lock.lose(e.reason(), "renew: " + e.getMessage())) {
        onLost(lock, e.reason(), "renew: " + e.getMessage());
      }
    } catch (SessionNotFoundException e) {
      sessionLost(s, "renew answered SESSION_NOT_FOUND");
      ensureSessionFromHeartbeat();
      return false;
    } catch (RuntimeException e) {
      if (!running) {
        return false;
      }
      // Not extended: the deadline keeps running and the watchdog fires if nothing confirms it.
      log.atWarn()
          .addKeyValue("event", "lock.renew.failed")
          .addKeyValue("key", lock.key().value())
          .addKeyValue("token", lock.token().value())
          .addKeyValue("remainingMillis", lock.remaining().toMillis())
          .addKeyValue("error", e.getMessage())
          .log("could not renew {}: {}", lock.key(), e.getMessage());
    }
    return true;
  }

  private void ensureSessionFromHeartbeat() {
    try {
      ClientSession s = currentSession();
      heartbeatSucceeded(s);
    } catch (RuntimeException e) {
      heartbeatFailed(null, "lock.session.create_failed", e);
    }
  }

  private void heartbeatSucceeded(ClientSession s) {
    int failures = consecutiveFailures.getAndSet(0);
    lastError = null;
    if (failures > 0) {
      log.atInfo()
          .addKeyValue("event", "lock.heartbeat.recovered")
          .addKeyValue("sessionId", s.id().value())
          .addKeyValue("failures", failures)
          .log("lock server reachable again after {} failed heartbeat(s)", failures);
    }
  }

  private void heartbeatFailed(SessionId id, String event, RuntimeException e) {
    if (!running) {
      // stop() interrupted a request in flight: not a failure of the lock server.
      return;
    }
    int failures = consecutiveFailures.incrementAndGet();
    lastError = e.getMessage();
    // The first failure is the state change; repeats go to debug so an outage does not flood.
    var builder = failures == 1 ? log.atWarn() : log.atDebug();
    builder
        .addKeyValue("event", event)
        .addKeyValue("sessionId", id == null ? null : id.value())
        .addKeyValue("consecutiveFailures", failures)
        .addKeyValue("liveGrants", live.size())
        .addKeyValue("error", e.getMessage())
        .log("lock heartbeat failed ({} in a row): {}", failures, e.getMessage());
  }

  /** The server no longer has session {@code s}: every lock of it is lost (SESSION_LOST). */
  private void sessionLost(ClientSession s, String detail) {
    sessionLock.lock();
    try {
      if (session == s) {
        session = null;
      }
    } finally {
      sessionLock.unlock();
    }
    if (!s.markLost()) {
      return;
    }
    long affected = live.stream().filter(l -> l.session() == s).count();
    log.atWarn()
        .addKeyValue("event", "lock.session.lost")
        .addKeyValue("sessionId", s.id().value())
        .addKeyValue("liveGrants", affected)
        .addKeyValue("detail", detail)
        .log("lock session {} lost ({}); {} lock(s) lost with it", s.id(), detail, affected);
    for (DefaultHeldLock lock : live) {
      if (lock.session() == s && lock.lose(Reason.SESSION_LOST, detail)) {
        onLost(lock, Reason.SESSION_LOST, detail);
      }
    }
    maybeOrphaned.values().removeIf(o -> o.sessionId().equals(s.id()));
  }

  /**
   * Releases grants our session may hold without knowing: an acquire whose every answer was lost
   * after the request may have reached the server. Acquiring again with the same session returns
   * that same grant (or a fresh one), which is then released at once; LOCK_HELD means another
   * session holds the key, so there is nothing of ours to free.
   */
  private void cleanUpOrphans(ClientSession s) {
    for (var entry : maybeOrphaned.entrySet()) {
      LockKey key = entry.getKey();
      Orphan orphan = entry.getValue();
      if (!orphan.sessionId().equals(s.id()) || orphan.tries() >= MAX_ORPHAN_CLEANUP_TRIES) {
        maybeOrphaned.remove(key, orphan);
        continue;
      }
      Object ticket = new Object();
      boolean reserved;
      try {
        reserved = reservations.reserve(key, ticket, 0);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      if (!reserved) {
        // A thread of ours is acquiring it right now and will own whatever grant exists.
        maybeOrphaned.remove(key, orphan);
        continue;
      }
      try {
        LockGrant grant = http.acquire(key, s.id(), Duration.ZERO);
        http.release(key, s.id(), grant.token());
        maybeOrphaned.remove(key, orphan);
        log.atInfo()
            .addKeyValue("event", "lock.orphan.released")
            .addKeyValue("key", key.value())
            .addKeyValue("token", grant.token().value())
            .log("released {} that an unanswered acquire may have left to this session", key);
      } catch (LockNotAcquiredException | NotHolderException | SessionNotFoundException e) {
        maybeOrphaned.remove(key, orphan);
      } catch (RuntimeException e) {
        maybeOrphaned.replace(key, orphan, orphan.retried());
      } finally {
        reservations.free(key, ticket);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Lock lost

  /** Called exactly once per lost lock, after it was marked lost. */
  void onLost(DefaultHeldLock lock, Reason reason, String detail) {
    live.remove(lock);
    metrics.lost(reason);
    log.atWarn()
        .addKeyValue("event", "lock.lost")
        .addKeyValue("key", lock.key().value())
        .addKeyValue("token", lock.token().value())
        .addKeyValue("reason", reason.name().toLowerCase(Locale.ROOT))
        .addKeyValue("sessionId", lock.grant().sessionId().value())
        .addKeyValue("detail", detail)
        .log("lock {} (token {}) lost: {}: {}", lock.key(), lock.token(), reason, detail);
    for (LockLostListener listener : lock.listeners()) {
      notifyListener(listener, lock, reason);
    }
    for (LockLostListener listener : listeners) {
      notifyListener(listener, lock, reason);
    }
  }

  void notifyListener(LockLostListener listener, DefaultHeldLock lock, Reason reason) {
    try {
      listener.onLockLost(lock, reason);
    } catch (RuntimeException e) {
      log.atWarn()
          .addKeyValue("event", "lock.listener.failed")
          .addKeyValue("key", lock.key().value())
          // The cause is ECS's `error` object; an `error` key as well drops the event.
          .setCause(e)
          .log("a lock-lost listener threw; ignored");
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Status

  @Override
  public SessionStatus sessionStatus() {
    if (!running) {
      return status(SessionStatus.State.STOPPED, null, Duration.ZERO);
    }
    ClientSession s = session;
    if (s == null) {
      return status(SessionStatus.State.DISCONNECTED, null, Duration.ZERO);
    }
    long remaining = s.confirmedAtNanos() + s.ttlNanos() - marginNanos - System.nanoTime();
    return status(
        remaining > 0 ? SessionStatus.State.CONNECTED : SessionStatus.State.EXPIRED,
        s.id().value(),
        Duration.ofNanos(Math.max(0, remaining)));
  }

  private SessionStatus status(SessionStatus.State state, String sessionId, Duration remaining) {
    return new SessionStatus(
        state,
        sessionId,
        settings.ttl(),
        remaining,
        live.size(),
        consecutiveFailures.get(),
        lastError);
  }

  @Override
  public int activeGrants() {
    return live.size();
  }

  // ---------------------------------------------------------------------------------------------

  private static Duration since(long startNanos) {
    return Duration.ofNanos(System.nanoTime() - startNanos);
  }

  private static ThreadFactory daemon(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }

  private void awaitQuietly(ScheduledExecutorService executor) {
    try {
      executor.awaitTermination(
          settings.connectTimeout().plus(settings.readTimeout()).toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A key whose acquire went unanswered, and how often cleanup has tried it. */
  private record Orphan(SessionId sessionId, int tries) {
    Orphan(SessionId sessionId) {
      this(sessionId, 0);
    }

    Orphan retried() {
      return new Orphan(sessionId, tries + 1);
    }
  }
}
