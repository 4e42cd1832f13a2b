package dev.fencepost.experiments.harness;

import dev.fencepost.history.Records;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;

/**
 * The etcd lock backend's grant history, as the history checker reads it (docs/history-checker.md,
 * item 4): a watch of the lock server's whole key prefix from revision 1 (compaction is off in
 * tests) until it reaches the revision the store had when the watch began; a put of {@code
 * <prefix>locks/<key>} is an ACQUIRED grant with the put's revision as token and its lease as
 * session, a delete a RELEASED of the token it deleted. Used by the scenarios that own their etcd
 * (the INV-04 restore, the chaos run on etcd): every revision of such an etcd is a write under the
 * prefix, so reaching the head revision means the whole history was read.
 */
public final class EtcdGrants {

  /** The lock server's default key prefix ({@code fencepost.lock.etcd.prefix}). */
  public static final String PREFIX = "/fencepost/";

  private EtcdGrants() {}

  /** Every grant and release of the etcd behind {@code endpoints} (comma separated), in order. */
  public static List<Records.Grant> read(String endpoints) {
    try (Client client = Client.builder().endpoints(endpoints.split(",")).build()) {
      ByteSequence all = ByteSequence.from(PREFIX, StandardCharsets.UTF_8);
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
      String locks = PREFIX + "locks/";
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
                          grant(event, locks).ifPresent(out::add);
                          seen.accumulateAndGet(event.getKeyValue().getModRevision(), Math::max);
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
      return out.stream().sorted(Comparator.comparing(Records.Grant::seq)).toList();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("etcd read failed", e);
    }
  }

  private static Optional<Records.Grant> grant(WatchEvent event, String locks) {
    KeyValue kv = event.getKeyValue();
    String key = kv.getKey().toString(StandardCharsets.UTF_8);
    if (!key.startsWith(locks)) {
      return Optional.empty();
    }
    String lockKey = key.substring(locks.length());
    long revision = kv.getModRevision();
    if (event.getEventType() == WatchEvent.EventType.PUT) {
      return Optional.of(
          new Records.Grant(
              "etcd",
              lockKey,
              revision,
              "ACQUIRED",
              Long.toHexString(kv.getLease()),
              revision,
              null));
    }
    if (event.getEventType() == WatchEvent.EventType.DELETE) {
      KeyValue prev = event.getPrevKV();
      return Optional.of(
          new Records.Grant(
              "etcd",
              lockKey,
              prev == null ? null : prev.getModRevision(),
              "RELEASED",
              prev == null ? null : Long.toHexString(prev.getLease()),
              revision,
              null));
    }
    return Optional.empty();
  }
}
