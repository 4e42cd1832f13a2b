package dev.fencepost.experiments.restore;

import dev.fencepost.history.Extractors;
import dev.fencepost.history.Records;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;

/**
 * The lock backend's grant history across restores, kept outside the backend (in the run directory)
 * because a restore rewinds the backend's own history with everything else.
 *
 * <p>The history is read in epochs: before each restore, and at the end. A restored store's history
 * ids (lockdb's {@code lock_event.id}, etcd's revision) start again after the backup's last one, so
 * they collide with the ids of the grants the restore erased. An epoch therefore keeps only the
 * records the restored store added (id above the backup's last id) and renumbers them after the
 * last record already kept: {@code seq} stays the real order of issue, which is what the checker's
 * {@code token_regressions} and {@code overlapping_grants} order by. Records of later epochs carry
 * the source {@code <source>-after-restore-<n>}.
 */
final class GrantHistory {

  private final List<Records.Grant> grants = new ArrayList<>();
  private long lastSeq;
  private int restores;

  /**
   * Adds one epoch read from the backend; {@code restoredUpTo} is the backup's last id (0: none).
   */
  synchronized void addEpoch(List<Records.Grant> read, long restoredUpTo) {
    long offset = lastSeq - restoredUpTo;
    String suffix = restores == 0 ? "" : "-after-restore-" + restores;
    for (Records.Grant g : read) {
      if (g.seq() > restoredUpTo) {
        Records.Grant kept =
            new Records.Grant(
                g.source() + suffix,
                g.key(),
                g.token(),
                g.kind(),
                g.session(),
                g.seq() + offset,
                g.at());
        grants.add(kept);
      }
    }
    lastSeq = grants.isEmpty() ? 0 : grants.get(grants.size() - 1).seq();
  }

  /** Marks a restore: the next epoch is read from the restored store. */
  synchronized void restored() {
    restores++;
  }

  synchronized List<Records.Grant> grants() {
    return List.copyOf(grants);
  }

  /** Every ACQUIRED grant on a key that starts with {@code prefix}. */
  synchronized List<Records.Grant> acquired(String prefix) {
    return grants.stream()
        .filter(g -> g.kind().equals("ACQUIRED") && g.key().startsWith(prefix))
        .toList();
  }

  /** lockdb's {@code lock_event}, as the history checker's extractor reads it. */
  static List<Records.Grant> lockdb(String jdbcUrl, String user, String password) {
    try (Connection c = DriverManager.getConnection(jdbcUrl, user, password)) {
      return Extractors.lockdb(c).stream().map(Records.Grant.class::cast).toList();
    } catch (SQLException e) {
      throw new IllegalStateException("lock_event extraction failed", e);
    }
  }

  /**
   * etcd's lock history (docs/history-checker.md, item 4): a watch of the whole key prefix from
   * revision 1 (compaction is off in tests) until it reaches the revision the store had when the
   * watch began; a put of {@code <prefix>locks/<key>} is an ACQUIRED grant with the put's revision
   * as token, a delete is a RELEASED of the token it deleted. Every revision of this private etcd
   * is a write under the prefix, so reaching the head revision means the whole history was read.
   */
  static List<Records.Grant> etcd(String endpoints, String prefix) {
    try (Client client = Client.builder().endpoints(endpoints.split(",")).build()) {
      ByteSequence all = ByteSequence.from(prefix, StandardCharsets.UTF_8);
      long head =
          client
              .getKVClient()
              .get(all, GetOption.builder().isPrefix(true).withCountOnly(true).build())
              .get()
              .getHeader()
              .getRevision();
      ConcurrentLinkedQueue<Records.Grant> out = new ConcurrentLinkedQueue<>();
      AtomicLong seen = new AtomicLong(1);
      AtomicReference<Throwable> failed = new AtomicReference<>();
      String locks = prefix + "locks/";
      WatchOption option =
          WatchOption.builder().withRevision(1).isPrefix(true).withPrevKV(true).build();
      try (Watch.Watcher ignored =
          client
              .getWatchClient()
              .watch(
                  all,
                  option,
                  Watch.listener(
                      response -> {
                        for (WatchEvent event : response.getEvents()) {
                          KeyValue kv = event.getKeyValue();
                          String key = kv.getKey().toString(StandardCharsets.UTF_8);
                          long revision = kv.getModRevision();
                          if (key.startsWith(locks)) {
                            String lockKey = key.substring(locks.length());
                            if (event.getEventType() == WatchEvent.EventType.PUT) {
                              out.add(
                                  new Records.Grant(
                                      "etcd",
                                      lockKey,
                                      revision,
                                      "ACQUIRED",
                                      Long.toHexString(kv.getLease()),
                                      revision,
                                      null));
                            } else if (event.getEventType() == WatchEvent.EventType.DELETE) {
                              KeyValue prev = event.getPrevKV();
                              out.add(
                                  new Records.Grant(
                                      "etcd",
                                      lockKey,
                                      prev == null ? null : prev.getModRevision(),
                                      "RELEASED",
                                      prev == null ? null : Long.toHexString(prev.getLease()),
                                      revision,
                                      null));
                            }
                          }
                          seen.accumulateAndGet(revision, Math::max);
                        }
                      },
                      failed::set))) {
        Awaitility.await("etcd history read up to revision " + head)
            .atMost(Duration.ofMinutes(1))
            .pollInterval(Duration.ofMillis(50))
            .until(
                () -> {
                  if (failed.get() != null) {
                    throw new IllegalStateException("etcd watch failed", failed.get());
                  }
                  return seen.get() >= head;
                });
      }
      return out.stream().sorted(java.util.Comparator.comparing(Records.Grant::seq)).toList();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("etcd read failed", e);
    }
  }

  /** The revision an etcd store is at (after a restore: the backup's last revision). */
  static long etcdRevision(String endpoints) {
    try (Client client = Client.builder().endpoints(endpoints.split(",")).build()) {
      return client
          .getKVClient()
          .get(
              ByteSequence.from("/", StandardCharsets.UTF_8),
              GetOption.builder().withCountOnly(true).build())
          .get()
          .getHeader()
          .getRevision();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("etcd read failed", e);
    }
  }

  static Instant now() {
    return Instant.now();
  }
}
