package dev.fencepost.lockserver.backend.postgres;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Coalesces session keepalives into one {@code UPDATE ... WHERE id = ANY(...)} (group commit, ADRs
 * 0094 and 0188); a renew extends its session through it too (ADR 0194). The keepalive that starts
 * a statement (the leader) first waits a short gather window for others to join it, because
 * heartbeats from many workers arrive spread out in time, not together: without the window almost
 * every one found no statement in flight and paid its own commit (measured: 0.98 commits per
 * keepalive at 10,000 sessions). Keepalives that arrive while a statement runs or a leader gathers
 * queue up and share the next statement. Each session is still extended by PostgreSQL's clock in
 * that one statement, under the same {@code expires_at > now()} condition as a single keepalive, so
 * a dead session is never revived and its caller still gets "not found"; the window only delays the
 * answer, by at most its length.
 *
 * <p>A caller of {@link #keepAlive} that finds no statement gathering leads one: it gathers, runs
 * its statement and then the batches queued meanwhile, until its own answer is in; every other such
 * caller waits for its own answer. A keepalive stream's frame holds no thread (ADR 0229): {@link
 * #keepAliveAsync} queues it and returns, and a thread of the batcher's own leads when no caller
 * does, then tells each answer of its batch on that thread once the statement's place is free.
 */
final class KeepAliveBatcher {

  private static final Logger log = LoggerFactory.getLogger(KeepAliveBatcher.class);

  /** PostgreSQL handles large arrays well; this bounds one statement's row locks and latency. */
  static final int MAX_BATCH = 512;

  private static final int DEADLOCK_ATTEMPTS = 5;

  /**
   * Statements that may run at once. One would make every batch wait for the previous leader's
   * waiter to be scheduled, which on a CPU-starved machine capped throughput at one batch per
   * scheduling delay (measured: 1,188 of 2,000 keepalives/s); a few keep the pipeline full while
   * still coalescing everything that queues behind them.
   */
  static final int MAX_CONCURRENT_STATEMENTS = 4;

  /**
   * The one statement that extends sessions, keepalives' and renews' alike (ADR 0194): each live
   * session of {@code :ids} (a {@code uuid[]} literal) by its own TTL from PostgreSQL's {@code
   * now()}. A session that has expired is not revived. Package-private for the tests that race it
   * against a takeover.
   */
  static final String EXTEND =
      """
      UPDATE lock_session
         SET expires_at = now() + ttl_millis * interval '1 millisecond',
             last_heartbeat_at = now()
       WHERE id = ANY(CAST(:ids AS uuid[])) AND expires_at > now()
      RETURNING id, owner, ttl_millis, expires_at
      """;

  /** One session's answer: its owner, TTL and new expiry by PostgreSQL's clock. */
  record Extended(String owner, Duration ttl, Instant expiresAt) {}

  /** What an asynchronous keepalive is told: its answer, or the failure of its statement. */
  @FunctionalInterface
  interface Answer {
    void accept(Optional<Extended> result, RuntimeException failure);
  }

  /**
   * One queued keepalive; its answer is set under the lock before waiters are signalled, and told
   * to {@code answer} (an asynchronous keepalive's) after the lock is released.
   */
  private static final class Pending {
    final UUID id;
    final Answer answer;
    boolean done;
    Optional<Extended> result;
    RuntimeException failure;

    Pending(UUID id, Answer answer) {
      this.id = id;
      this.answer = answer;
    }
  }

  private final JdbcClient jdbc;
  private final Function<java.util.function.Supplier<Map<UUID, Extended>>, Map<UUID, Extended>>
      call;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition answered = lock.newCondition();
  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  private int running;
  private int maxConcurrent = MAX_CONCURRENT_STATEMENTS;
  private final Condition batchFull = lock.newCondition();
  private boolean gathering;
  private long gatherNanos;
  private int maxBatch = MAX_BATCH;
  private final AtomicLong statements = new AtomicLong();
  private volatile Runnable beforeStatement = () -> {};
  private final ExecutorService leaders = leaderThreads();
  private boolean leaderStarting;

  /**
   * @param call wraps each statement as the backend wraps every call (grace step, translation of
   *     connectivity failures); its exception reaches every keepalive of that batch
   * @param gather how long a leader waits for other keepalives before its statement; zero runs a
   *     lone keepalive at once
   */
  KeepAliveBatcher(
      JdbcClient jdbc,
      Function<java.util.function.Supplier<Map<UUID, Extended>>, Map<UUID, Extended>> call,
      Duration gather) {
    if (gather.isNegative()) {
      throw new IllegalArgumentException("keepalive gather window must not be negative");
    }
    this.jdbc = jdbc;
    this.call = call;
    this.gatherNanos = gather.toNanos();
  }

  /** Extends the session if it is live; empty if it does not exist or has expired. */
  Optional<Extended> keepAlive(UUID id) {
    Pending mine = new Pending(id, null);
    lock.lock();
    try {
      queue.add(mine);
      if (gathering && queue.size() >= maxBatch) {
        batchFull.signal();
      }
      // Lead only while my own answer is missing: a leader never works through other callers'
      // batches after its own is done, so no caller waits longer than the statements ahead of it.
      while (!mine.done) {
        if (gathering || running >= maxConcurrent || queue.isEmpty()) {
          // A leader is gathering (it will take mine), all statements are busy, or another leader
          // already took my keepalive into its statement.
          answered.awaitUninterruptibly();
          continue;
        }
        running++;
        gather();
        List<Pending> batch = take();
        if (!queue.isEmpty()) {
          // More than one batch queued while gathering: let a waiter lead the rest.
          answered.signalAll();
        }
        runUnlocked(batch);
      }
    } finally {
      lock.unlock();
    }
    if (mine.failure != null) {
      throw mine.failure;
    }
    return mine.result;
  }

  /**
   * Extends the session if it is live and tells {@code answer}, without holding the caller's
   * thread: the keepalive joins the statement being gathered, or the next one, which a thread of
   * the batcher's or a waiting caller leads. {@code answer} runs on that thread, once per
   * keepalive, after its statement; it must not block for long, since the answers of a batch are
   * told one after another.
   */
  void keepAliveAsync(UUID id, Answer answer) {
    lock.lock();
    try {
      queue.add(new Pending(id, answer));
      if (gathering) {
        if (queue.size() >= maxBatch) {
          batchFull.signal();
        }
        return;
      }
      startLeaderIfIdle();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Under the lock: starts a leader on the batcher's threads when keepalives are queued and nobody
   * gathers while a statement may start, unless one is already starting.
   */
  private void startLeaderIfIdle() {
    if (queue.isEmpty() || gathering || running >= maxConcurrent || leaderStarting) {
      return;
    }
    leaderStarting = true;
    leaders.execute(this::lead);
  }

  /** A leader of the batcher's own: leads statements while keepalives are queued for one. */
  private void lead() {
    lock.lock();
    try {
      leaderStarting = false;
      while (!queue.isEmpty() && !gathering && running < maxConcurrent) {
        running++;
        gather();
        List<Pending> batch = take();
        if (!queue.isEmpty()) {
          answered.signalAll();
          startLeaderIfIdle();
        }
        runUnlocked(batch);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Called and returning under the lock: runs the batch's statement without it, frees its place
   * among the statements, and only then tells the asynchronous keepalives their answers, so that an
   * answer slow to be told (a stream whose client reads slowly) holds no statement back.
   */
  private void runUnlocked(List<Pending> batch) {
    lock.unlock();
    try {
      run(batch);
    } finally {
      lock.lock();
      running--;
      answered.signalAll();
      // Asynchronous keepalives queued meanwhile have no thread waiting to lead them.
      startLeaderIfIdle();
    }
    lock.unlock();
    try {
      tell(batch);
    } finally {
      lock.lock();
    }
  }

  private static ExecutorService leaderThreads() {
    AtomicLong n = new AtomicLong();
    return Executors.newCachedThreadPool(
        r -> {
          Thread t = new Thread(r, "fencepost-keepalive-batch-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
  }

  /** Statements run so far (for tests: fewer than keepalives means they were coalesced). */
  long statements() {
    return statements.get();
  }

  /** Test seam: how many statements may run at once. */
  void maxConcurrentStatements(int max) {
    lock.lock();
    try {
      this.maxConcurrent = max;
    } finally {
      lock.unlock();
    }
  }

  /** Test seam: the gather window. */
  void gatherWindow(Duration gather) {
    lock.lock();
    try {
      this.gatherNanos = gather.toNanos();
    } finally {
      lock.unlock();
    }
  }

  /** Test seam: the most keepalives one statement takes (a full batch ends the gathering). */
  void maxBatch(int max) {
    lock.lock();
    try {
      this.maxBatch = max;
    } finally {
      lock.unlock();
    }
  }

  /** Test seam: runs in the leader just before each statement. */
  void beforeStatement(Runnable hook) {
    this.beforeStatement = hook;
  }

  /** Keepalives queued and not yet taken into a statement. */
  int queued() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Under the lock: waits, releasing it, until the window has passed or a full batch has queued.
   * While one leader gathers no other starts a statement, so everything arriving joins this one.
   */
  private void gather() {
    if (gatherNanos <= 0) {
      return;
    }
    gathering = true;
    try {
      long left = gatherNanos;
      while (left > 0 && queue.size() < maxBatch) {
        left = batchFull.awaitNanos(left);
      }
    } catch (InterruptedException e) {
      // Stop gathering and run what is queued; the caller's thread keeps its interrupt.
      Thread.currentThread().interrupt();
    } finally {
      gathering = false;
    }
  }

  private List<Pending> take() {
    List<Pending> batch = new ArrayList<>(Math.min(queue.size(), maxBatch));
    while (batch.size() < maxBatch && !queue.isEmpty()) {
      batch.add(queue.poll());
    }
    return batch;
  }

  /** Runs one statement outside the lock and records every answer under it. */
  private void run(List<Pending> batch) {
    Map<UUID, Extended> extended = null;
    RuntimeException failure = null;
    try {
      beforeStatement.run();
      extended = call.apply(() -> update(batch));
    } catch (RuntimeException e) {
      failure = e;
    }
    lock.lock();
    try {
      for (Pending p : batch) {
        if (failure != null) {
          p.failure = failure;
        } else {
          p.result = Optional.ofNullable(extended.get(p.id));
        }
        p.done = true;
      }
    } finally {
      lock.unlock();
    }
  }

  /** Tells each asynchronous keepalive of a batch that has run its answer, outside the lock. */
  private void tell(List<Pending> batch) {
    for (Pending p : batch) {
      if (p.answer != null) {
        try {
          p.answer.accept(p.result, p.failure);
        } catch (RuntimeException e) {
          // One caller's answer that failed must not keep the rest of the batch from theirs.
          log.atError()
              .addKeyValue("event", "lock.keepalive.answer_failed")
              .setCause(e)
              .log("a keepalive's answer failed");
        }
      }
    }
  }

  private Map<UUID, Extended> update(List<Pending> batch) {
    StringBuilder ids = new StringBuilder(batch.size() * 37 + 2).append('{');
    for (int i = 0; i < batch.size(); i++) {
      ids.append(i == 0 ? "" : ",").append(batch.get(i).id);
    }
    String array = ids.append('}').toString();
    for (int attempt = 1; ; attempt++) {
      try {
        statements.incrementAndGet();
        Map<UUID, Extended> out = new HashMap<>();
        // Autocommit, one statement: each row is locked only for its own update, in the same way
        // as a single keepalive, so a racing takeover sees either the extended or the expired row.
        jdbc.sql(EXTEND)
            .param("ids", array)
            .query(
                rs -> {
                  out.put(
                      rs.getObject("id", UUID.class),
                      new Extended(
                          rs.getString("owner"),
                          Duration.ofMillis(rs.getLong("ttl_millis")),
                          rs.getTimestamp("expires_at").toInstant()));
                });
        return out;
      } catch (PessimisticLockingFailureException e) {
        // A batch locks several session rows; a takeover in acquire can lock two. PostgreSQL
        // breaks such a cycle by aborting one side; nothing was changed, so run it again.
        if (attempt >= DEADLOCK_ATTEMPTS) {
          throw e;
        }
      }
    }
  }
}
