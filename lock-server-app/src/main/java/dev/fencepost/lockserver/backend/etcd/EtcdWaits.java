package dev.fencepost.lockserver.backend.etcd;

import dev.fencepost.lockserver.backend.WaitQueues;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's waiting acquires on etcd (ADR 0214): one watch per key that has waiters asleep,
 * shared by them, feeding the key's first-in-first-out queue ({@link WaitQueues}). A delete of the
 * key wakes the first waiter only, as on PostgreSQL. Before, every waiter watched the key on its
 * own and a release woke them all: 15 acquire transactions per hand-off with 16 waiters, each a
 * raft entry, and a watch opened and closed per waiter per release.
 *
 * <p>No delete a waiter needs is missed. A waiter joins its queue before its first attempt, and
 * before it sleeps it makes sure a watch of the key is open from a revision no later than one after
 * its own failed attempt saw the key held ({@link #watch}). A watch opened earlier by another
 * waiter started after a revision at which that waiter saw the key held; any delete it does not
 * replay was followed by a new grant before then, which this waiter's attempt would have lost
 * anyway.
 *
 * <p>A watch that breaks (a stream reset, a leader lost, its start revision compacted) wakes every
 * waiter of its key: each attempts again and, failing, opens a new watch from what it saw. Watches
 * are not reopened within 100 ms of a break, so a flapping stream cannot become a tight loop.
 */
final class EtcdWaits {

  private static final Logger log = LoggerFactory.getLogger(EtcdWaits.class);
  private static final long REWATCH_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  /** A key's shared watch and how many waiters hold it; guarded by the {@link EtcdWaits}' lock. */
  static final class KeyWatch {
    private final String key;
    private Watch.Watcher watcher;
    private int holders;
    private boolean broken;

    private KeyWatch(String key) {
      this.key = key;
    }
  }

  private final Watch watches;
  private final WaitQueues queues = new WaitQueues();
  private final Map<String, KeyWatch> open = new HashMap<>();
  private final AtomicLong opened = new AtomicLong();
  private final AtomicLong heard = new AtomicLong();
  private final AtomicLong breaks = new AtomicLong();
  private volatile long lastBreakNanos = System.nanoTime() - REWATCH_BACKOFF_NANOS;

  EtcdWaits(Watch watches) {
    this.watches = watches;
  }

  /** The queues of this instance's waiting acquires. */
  WaitQueues queues() {
    return queues;
  }

  /**
   * Takes a hold on a watch of {@code lockKey} that replays every delete after {@code
   * observedRevision} the waiter needs: the key's open watch, or a new one from the revision after
   * {@code observedRevision}. Hold it until the waiter leaves, or until it {@link #isBroken
   * breaks}.
   */
  KeyWatch watch(String key, ByteSequence lockKey, long observedRevision) {
    synchronized (open) {
      KeyWatch current = open.get(key);
      if (current != null) {
        current.holders++;
        return current;
      }
    }
    long sinceBreak = System.nanoTime() - lastBreakNanos;
    if (sinceBreak < REWATCH_BACKOFF_NANOS) {
      LockSupport.parkNanos(REWATCH_BACKOFF_NANOS - sinceBreak);
    }
    synchronized (open) {
      KeyWatch current = open.get(key);
      if (current != null) {
        current.holders++;
        return current;
      }
      KeyWatch created = new KeyWatch(key);
      created.holders = 1;
      WatchOption option =
          WatchOption.builder()
              .withRevision(observedRevision + 1)
              .withNoPut(true)
              .withRequireLeader(true)
              .build();
      created.watcher =
          watches.watch(
              lockKey,
              option,
              Watch.listener(
                  response -> {
                    for (WatchEvent event : response.getEvents()) {
                      if (event.getEventType() == WatchEvent.EventType.DELETE) {
                        queues.wake(key);
                        heard.incrementAndGet();
                      }
                    }
                  },
                  error -> broke(created, error),
                  () -> broke(created, null)));
      open.put(key, created);
      opened.incrementAndGet();
      return created;
    }
  }

  /** True once the watch has broken; its holders should let it go and take a new one. */
  boolean isBroken(KeyWatch held) {
    synchronized (open) {
      return held.broken;
    }
  }

  /** The waiter is done with its watch (null: it had none): the last holder closes it. */
  void unwatch(KeyWatch held) {
    if (held == null) {
      return;
    }
    synchronized (open) {
      letGo(held);
    }
  }

  /** Watches opened so far (for tests: one per key with waiters, not one per waiter). */
  long opened() {
    return opened.get();
  }

  /** Deletes heard on the watches so far, each counted after its wake (for tests). */
  long heard() {
    return heard.get();
  }

  /** Watches that broke so far, each counted after its waiters were woken (for tests). */
  long breaks() {
    return breaks.get();
  }

  /** Keys with a watch open now (for tests). */
  int openWatches() {
    synchronized (open) {
      return open.size();
    }
  }

  private void letGo(KeyWatch held) {
    held.holders--;
    if (held.holders == 0) {
      if (open.get(held.key) == held) {
        open.remove(held.key);
      }
      // Ended on purpose: whatever the listener hears of the close is not a break.
      held.broken = true;
      held.watcher.close();
    }
  }

  private void broke(KeyWatch watch, Throwable error) {
    synchronized (open) {
      if (watch.broken) {
        return;
      }
      watch.broken = true;
      if (open.get(watch.key) == watch) {
        open.remove(watch.key);
      }
    }
    lastBreakNanos = System.nanoTime();
    log.atInfo()
        .addKeyValue("event", "lock.etcd.watch_broken")
        .addKeyValue("key", watch.key)
        .addKeyValue("error", error == null ? "completed" : error.toString())
        .log("a key's shared watch ended; its waiters attempt again");
    queues.wakeAll(watch.key);
    breaks.incrementAndGet();
  }
}
