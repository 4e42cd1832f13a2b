package dev.fencepost.bench;

import dev.fencepost.launcher.etcd.EtcdCluster;
import dev.fencepost.launcher.etcd.EtcdMember;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.api.LeaseGrpc;
import io.etcd.jetcd.api.LeaseKeepAliveRequest;
import io.etcd.jetcd.api.LeaseKeepAliveResponse;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * How many lease keepalives one etcd {@code LeaseKeepAlive} stream carries a second, on the leader
 * and on a follower, which forwards each keepalive to the leader and waits for its answer before it
 * reads the next (ADR 0228: why the lock server keeps several streams). Starts a 3-member cluster
 * on loopback, grants {@code probe.leases} (1,000) leases of 60 s, and for each member role, stream
 * count (1, 4) and keepalives in flight per stream (1, 64) sends keepalives for {@code
 * probe.seconds} (5) after 1 s unmeasured; prints keepalives a second and the median time from a
 * keepalive's send to its answer. Run it alone on a quiet machine:
 *
 * <pre>
 * java -Dlogback.configurationFile=bench/logback-harness.xml \
 *   -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.fencepost.bench.KeepaliveForwarding
 * </pre>
 */
public final class KeepaliveForwarding {

  private KeepaliveForwarding() {}

  public static void main(String[] args) throws Exception {
    int leaseCount = Integer.getInteger("probe.leases", 1_000);
    int seconds = Integer.getInteger("probe.seconds", 5);
    System.out.println("commit " + Provenance.commit() + ", load " + Provenance.loadAverage());
    try (EtcdCluster cluster = EtcdCluster.builder().members(3).start()) {
      EtcdMember leader = cluster.leader().orElseThrow();
      EtcdMember follower =
          cluster.members().stream().filter(m -> m != leader).findFirst().orElseThrow();
      long[] leases = new long[leaseCount];
      try (Client client = Client.builder().endpoints(cluster.endpoints().split(",")).build()) {
        for (int i = 0; i < leaseCount; i++) {
          leases[i] = client.getLeaseClient().grant(60).get(10, TimeUnit.SECONDS).getID();
        }
      }
      System.out.println("| member | streams | in flight per stream | keepalives/s | median ms |");
      System.out.println("|---|---|---|---|---|");
      for (EtcdMember member : List.of(leader, follower)) {
        for (int streams : new int[] {1, 4}) {
          for (int inFlight : new int[] {1, 64}) {
            Result result = run(member, leases, streams, inFlight, seconds);
            System.out.printf(
                "| %s | %d | %d | %,.0f | %.3f |%n",
                member == leader ? "leader" : "follower",
                streams,
                inFlight,
                result.perSecond(),
                result.medianMillis());
          }
        }
      }
    }
    System.out.println("load after " + Provenance.loadAverage());
  }

  private record Result(double perSecond, double medianMillis) {}

  private static Result run(
      EtcdMember member, long[] leases, int streams, int inFlight, int seconds)
      throws InterruptedException {
    ManagedChannel channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", member.clientPort()).usePlaintext().build();
    try {
      List<Stream> open = new ArrayList<>();
      for (int i = 0; i < streams; i++) {
        open.add(new Stream(LeaseGrpc.newStub(channel), leases, i));
      }
      open.forEach(s -> s.start(inFlight));
      Thread.sleep(1_000);
      open.forEach(Stream::measure);
      long start = System.nanoTime();
      Thread.sleep(seconds * 1_000L);
      double elapsed = (System.nanoTime() - start) / 1e9;
      long answered = 0;
      List<Long> latencies = new ArrayList<>();
      for (Stream stream : open) {
        answered += stream.stop(latencies);
      }
      long[] sorted = latencies.stream().mapToLong(Long::longValue).toArray();
      Arrays.sort(sorted);
      double median = sorted.length == 0 ? Double.NaN : sorted[sorted.length / 2] / 1e6;
      return new Result(answered / elapsed, median);
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  /** One stream keeping {@code inFlight} keepalives outstanding, each answer sending the next. */
  private static final class Stream implements StreamObserver<LeaseKeepAliveResponse> {
    private final long[] leases;
    private final ArrayDeque<Long> sentAt = new ArrayDeque<>();
    private final List<Long> latencies = new ArrayList<>();
    private final StreamObserver<LeaseKeepAliveRequest> requests;
    private int next;
    private boolean measuring;
    private boolean stopped;
    private long answered;

    Stream(LeaseGrpc.LeaseStub stub, long[] leases, int offset) {
      this.leases = leases;
      this.next = offset * 97;
      this.requests = stub.leaseKeepAlive(this);
    }

    synchronized void start(int inFlight) {
      for (int i = 0; i < inFlight; i++) {
        send();
      }
    }

    private void send() {
      long lease = leases[next++ % leases.length];
      sentAt.add(System.nanoTime());
      requests.onNext(LeaseKeepAliveRequest.newBuilder().setID(lease).build());
    }

    synchronized void measure() {
      measuring = true;
    }

    synchronized long stop(List<Long> into) {
      stopped = true;
      measuring = false;
      into.addAll(latencies);
      requests.onCompleted();
      return answered;
    }

    @Override
    public synchronized void onNext(LeaseKeepAliveResponse response) {
      long sent = sentAt.poll();
      if (stopped) {
        return;
      }
      if (response.getTTL() <= 0) {
        throw new IllegalStateException("lease " + response.getID() + " is gone");
      }
      if (measuring) {
        answered++;
        latencies.add(System.nanoTime() - sent);
      }
      send();
    }

    @Override
    public void onError(Throwable t) {
      synchronized (this) {
        if (stopped) {
          return;
        }
      }
      System.err.println("keepalive stream failed: " + t);
    }

    @Override
    public void onCompleted() {}
  }
}
