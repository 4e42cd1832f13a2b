package dev.fencepost.lockserver.backend.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.options.GetOption;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts etcd leader elections as the lock server sees them (NFR-02, ADR 0175): every {@code
 * leaderPoll} one count-only read of one key under the lock service's prefix, over the client's own
 * authenticated channels, and the raft term in the answer's header. Raft elects at most one leader
 * per term and every election starts a new term, so each term the lock server sees advance is one
 * election, successful or not; a term first seen sets the baseline and counts nothing, so a lock
 * server's restart is no election.
 *
 * <ul>
 *   <li>{@code fencepost.lock.etcd.leader.changes} counter: terms advanced since start
 *   <li>{@code fencepost.lock.etcd.raft.term} gauge: the last term seen (0 before the first read)
 * </ul>
 *
 * A read that fails (etcd down, an election in progress) counts nothing and is retried at the next
 * poll; the lock server's own operations report unavailability.
 */
public final class EtcdLeaderChanges implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EtcdLeaderChanges.class);

  private final KV kv;
  private final ByteSequence probeKey;
  private final Duration callTimeout;
  private final Counter changes;
  private final AtomicLong term = new AtomicLong();
  private ScheduledExecutorService schedule;

  /**
   * @param keyPrefix the lock service's prefix: the probe key lives under it, where the lock
   *     server's etcd role may read (ADR 0158)
   */
  public EtcdLeaderChanges(KV kv, String keyPrefix, Duration callTimeout, MeterRegistry meters) {
    this.kv = kv;
    this.probeKey = ByteSequence.from(keyPrefix + "leader-probe", StandardCharsets.UTF_8);
    this.callTimeout = callTimeout;
    this.changes =
        Counter.builder("fencepost.lock.etcd.leader.changes")
            .description("etcd leader elections seen by this lock server (raft terms advanced)")
            .register(meters);
    Gauge.builder("fencepost.lock.etcd.raft.term", term, AtomicLong::doubleValue)
        .description("the last etcd raft term this lock server saw")
        .register(meters);
  }

  /** Polls now and then every {@code every} on a daemon thread until {@link #close}. */
  public synchronized EtcdLeaderChanges start(Duration every) {
    if (schedule == null) {
      schedule =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "etcd-leader-changes");
                t.setDaemon(true);
                return t;
              });
      schedule.scheduleWithFixedDelay(this::poll, 0, every.toMillis(), TimeUnit.MILLISECONDS);
    }
    return this;
  }

  /** One read of the raft term; counts the terms it advanced since the last read. */
  public void poll() {
    long seen;
    try {
      seen =
          kv.get(probeKey, GetOption.builder().withCountOnly(true).build())
              .get(callTimeout.multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS)
              .getHeader()
              .getRaftTerm();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (Exception e) {
      log.atDebug()
          .addKeyValue("event", "lock.etcd.term_unread")
          .addKeyValue("error", String.valueOf(e.getMessage()))
          .log("etcd raft term not read; retried at the next poll");
      return;
    }
    long previous = term.getAndAccumulate(seen, Math::max);
    if (previous > 0 && seen > previous) {
      changes.increment(seen - previous);
      log.atWarn()
          .addKeyValue("event", "lock.etcd.leader_changed")
          .addKeyValue("previousTerm", previous)
          .addKeyValue("term", seen)
          .log("etcd elected a leader: raft term {} -> {}", previous, seen);
    }
  }

  @Override
  public synchronized void close() {
    if (schedule != null) {
      schedule.shutdownNow();
      schedule = null;
    }
  }
}
