package dev.fencepost.bench;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * E1 (raw jetcd transactions) and E2 (jetcd's Lock RPC). Each worker owns a lease (its "session",
 * TTL 30 s, renewed by the RENEW operation); all workers of a target share one jetcd client (one
 * gRPC channel), as one process would.
 */
public final class EtcdTargets {

  private static final long LEASE_SECONDS = 30;
  private static final long TIMEOUT_SECONDS = 15;

  private EtcdTargets() {}

  static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  /** E1: put-if-absent on a lease (token = revision), compare-and-delete on ModRevision. */
  public static LockTarget rawTransactions(String endpoints) {
    Client etcd = Client.builder().endpoints(endpoints.split(",")).build();
    return new LockTarget.Described(
        "E1",
        "raw jetcd txn: put-if-absent with lease / compare-and-delete on ModRevision",
        Store.ETCD,
        EnumSet.of(Op.ACQUIRE, Op.PAIR, Op.TRY_HELD, Op.HANDOFF, Op.RENEW, Op.INSPECT)) {

      @Override
      public String why(Op op) {
        return switch (op) {
          case HANDOFF -> "waiter watches the key from the failed txn's revision for its delete";
          case RENEW -> "lease keepAliveOnce";
          case INSPECT -> "KV get of the key";
          default -> "";
        };
      }

      @Override
      public LockTarget.Client client(int index) throws Exception {
        KV kv = etcd.getKVClient();
        Lease lease = etcd.getLeaseClient();
        Watch watch = etcd.getWatchClient();
        long leaseId = lease.grant(LEASE_SECONDS).get(TIMEOUT_SECONDS, TimeUnit.SECONDS).getID();
        ByteSequence value = bytes("worker-" + index);
        return new LockTarget.Client() {
          private TxnResponse tryPut(ByteSequence key) throws Exception {
            return kv.txn()
                .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(
                    io.etcd.jetcd.op.Op.put(
                        key, value, PutOption.builder().withLeaseId(leaseId).build()))
                .commit()
                .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
          }

          @Override
          public Object acquire(String key) throws Exception {
            TxnResponse r = tryPut(bytes("/bench-e1/" + key));
            return r.isSucceeded() ? r.getHeader().getRevision() : null;
          }

          @Override
          public Object acquireWaiting(String key, Duration max) throws Exception {
            ByteSequence k = bytes("/bench-e1/" + key);
            long deadline = System.nanoTime() + max.toNanos();
            while (true) {
              TxnResponse r = tryPut(k);
              if (r.isSucceeded()) {
                return r.getHeader().getRevision();
              }
              CountDownLatch deleted = new CountDownLatch(1);
              WatchOption option =
                  WatchOption.builder().withRevision(r.getHeader().getRevision() + 1).build();
              try (Watch.Watcher ignored =
                  watch.watch(
                      k,
                      option,
                      response -> {
                        for (WatchEvent e : response.getEvents()) {
                          if (e.getEventType() == WatchEvent.EventType.DELETE) {
                            deleted.countDown();
                          }
                        }
                      })) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !deleted.await(left, TimeUnit.NANOSECONDS)) {
                  throw new IllegalStateException("no hand-off within " + max);
                }
              }
            }
          }

          @Override
          public void release(String key, Object handle) throws Exception {
            ByteSequence k = bytes("/bench-e1/" + key);
            TxnResponse r =
                kv.txn()
                    .If(new Cmp(k, Cmp.Op.EQUAL, CmpTarget.modRevision((Long) handle)))
                    .Then(io.etcd.jetcd.op.Op.delete(k, DeleteOption.builder().build()))
                    .commit()
                    .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (!r.isSucceeded()) {
              throw new IllegalStateException("release of " + key + " found another grant");
            }
          }

          @Override
          public Object renew(String key, Object handle) throws Exception {
            lease.keepAliveOnce(leaseId).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            return handle;
          }

          @Override
          public void inspect(String key) throws Exception {
            kv.get(bytes("/bench-e1/" + key), GetOption.builder().build())
                .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
          }

          @Override
          public void close() throws Exception {
            lease.revoke(leaseId).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
          }
        };
      }

      @Override
      public void close() {
        etcd.close();
      }
    };
  }

  /** E2: jetcd's Lock RPC (the v3lock service) on a per-worker lease. */
  public static LockTarget lockRpc(String endpoints) {
    Client etcd = Client.builder().endpoints(endpoints.split(",")).build();
    return new LockTarget.Described(
        "E2",
        "jetcd Lock RPC (v3lock: lock on a lease / unlock)",
        Store.ETCD,
        EnumSet.of(Op.ACQUIRE, Op.PAIR, Op.HANDOFF, Op.RENEW)) {

      @Override
      public String why(Op op) {
        return switch (op) {
          case TRY_HELD -> "the Lock RPC has no try: it always waits (only a deadline cancels)";
          case INSPECT -> "no inspect call in the Lock API (holders are keys name/leaseId)";
          case RENEW -> "lease keepAliveOnce";
          case HANDOFF -> "the RPC's own queue (waits on the previous key's delete)";
          default -> "";
        };
      }

      @Override
      public LockTarget.Client client(int index) throws Exception {
        io.etcd.jetcd.Lock lock = etcd.getLockClient();
        Lease lease = etcd.getLeaseClient();
        long leaseId = lease.grant(LEASE_SECONDS).get(TIMEOUT_SECONDS, TimeUnit.SECONDS).getID();
        return new LockTarget.Client() {
          @Override
          public Object acquire(String key) throws Exception {
            return lock.lock(bytes("/bench-e2/" + key), leaseId)
                .get(TIMEOUT_SECONDS, TimeUnit.SECONDS)
                .getKey();
          }

          @Override
          public Object acquireWaiting(String key, Duration max) throws Exception {
            return lock.lock(bytes("/bench-e2/" + key), leaseId)
                .get(max.toMillis(), TimeUnit.MILLISECONDS)
                .getKey();
          }

          @Override
          public void release(String key, Object handle) throws Exception {
            lock.unlock((ByteSequence) handle).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
          }

          @Override
          public Object renew(String key, Object handle) throws Exception {
            lease.keepAliveOnce(leaseId).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            return handle;
          }

          @Override
          public void close() throws Exception {
            lease.revoke(leaseId).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
          }
        };
      }

      @Override
      public void close() {
        etcd.close();
      }
    };
  }
}
