package dev.fencepost.lockserver.backend.etcd;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.api.LeaseGrpc;
import io.etcd.jetcd.api.LeaseKeepAliveRequest;
import io.etcd.jetcd.api.LeaseKeepAliveResponse;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdExceptionFactory;
import io.etcd.jetcd.impl.FencepostChannelAccess;
import io.etcd.jetcd.support.Errors;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lease keepalives on a few long-lived streams for the whole lock server (ADR 0228): each keepalive
 * is one request on a {@code LeaseKeepAlive} stream and its answer, where jetcd's {@code
 * keepAliveOnce} opens a stream per keepalive (and writes the request twice on it).
 *
 * <p>etcd answers a keepalive stream's requests one at a time, in the order sent, each answer
 * naming its lease; so the answer to the oldest request not yet answered is the next to come, and
 * an answer naming another lease means the stream cannot be trusted: it is cancelled and everything
 * waiting on it fails (retried by {@link EtcdCalls} like any transient failure). One at a time is
 * why there are {@value #STREAMS} streams, used in turn: a member that is not etcd's leader
 * forwards each keepalive to the leader and waits for its answer before it reads the next.
 *
 * <p>The two bounds of {@link EtcdCalls} hold. A keepalive not answered within the call timeout
 * ends its stream: it and every keepalive sent after it on that stream fail with {@code
 * DEADLINE_EXCEEDED}, and the next keepalive opens a new stream, which the channel may place on
 * another member. A stream etcd ends (a member that lost its leader, a token etcd refused, a closed
 * connection) fails what waits on it the same way, and a refused token is dropped so that the next
 * stream authenticates again.
 */
final class LeaseKeepAlives {

  private static final Logger log = LoggerFactory.getLogger(LeaseKeepAlives.class);

  /** The gRPC method of the stream, which carries no deadline of its own (EtcdClients). */
  static final String METHOD = "etcdserverpb.Lease/LeaseKeepAlive";

  /** Streams kept open, each keepalive sent on the next in turn. */
  static final int STREAMS = 4;

  /** One thread for every instance's keepalive deadlines; a deadline met leaves its queue. */
  private static final ScheduledThreadPoolExecutor DEADLINES = deadlines();

  private final LeaseGrpc.LeaseStub stub;
  private final Runnable forgetToken;
  private final long callTimeoutNanos;
  private final Lane[] lanes = new Lane[STREAMS];
  private final AtomicInteger turn = new AtomicInteger();
  private final AtomicLong streamsOpened = new AtomicLong();
  private final AtomicLong streamsEnded = new AtomicLong();

  LeaseKeepAlives(LeaseGrpc.LeaseStub stub, Runnable forgetToken, Duration callTimeout) {
    this.stub = stub;
    this.forgetToken = forgetToken;
    this.callTimeoutNanos = callTimeout.toNanos();
    for (int i = 0; i < STREAMS; i++) {
      lanes[i] = new Lane();
    }
  }

  /** Keepalives on {@code client}'s own channel, with its credentials. */
  static LeaseKeepAlives on(Client client, Duration callTimeout) {
    return new LeaseKeepAlives(
        FencepostChannelAccess.leaseStub(client),
        () -> FencepostChannelAccess.forgetToken(client),
        callTimeout);
  }

  /**
   * Sends one keepalive of lease {@code leaseId}. The future completes with the lease's new TTL in
   * seconds, or fails with jetcd's "requested lease not found" ({@link EtcdCalls#isLeaseNotFound}),
   * or with the gRPC status that ended the stream.
   */
  CompletableFuture<Long> keepAlive(long leaseId) {
    return lanes[Math.floorMod(turn.getAndIncrement(), STREAMS)].send(leaseId);
  }

  /** Streams opened since this instance was made: {@value #STREAMS} while etcd keeps them. */
  long streamsOpened() {
    return streamsOpened.get();
  }

  /** Streams ended since this instance was made, by etcd or by this instance. */
  long streamsEnded() {
    return streamsEnded.get();
  }

  private static ScheduledThreadPoolExecutor deadlines() {
    ScheduledThreadPoolExecutor timer =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "fencepost-etcd-keepalive-deadlines");
              t.setDaemon(true);
              return t;
            });
    timer.setRemoveOnCancelPolicy(true);
    return timer;
  }

  /** One of the streams: the one open now, if any, and the lock that orders its requests. */
  private final class Lane {
    private final Object lock = new Object();
    private Stream current;

    CompletableFuture<Long> send(long leaseId) {
      Pending pending = new Pending(leaseId);
      LeaseKeepAliveRequest request = LeaseKeepAliveRequest.newBuilder().setID(leaseId).build();
      synchronized (lock) {
        Stream stream = current;
        if (stream == null) {
          stream = new Stream(this);
          current = stream;
        }
        Stream on = stream;
        pending.deadline =
            DEADLINES.schedule(() -> on.expire(pending), callTimeoutNanos, TimeUnit.NANOSECONDS);
        stream.pending.add(pending);
        // Sent under the lock: the order of the queue is the order on the wire.
        stream.requests.onNext(request);
      }
      return pending.future;
    }
  }

  /** One keepalive waiting for its answer. */
  private static final class Pending {
    private final long leaseId;
    private final CompletableFuture<Long> future = new CompletableFuture<>();
    private ScheduledFuture<?> deadline;

    private Pending(long leaseId) {
      this.leaseId = leaseId;
    }

    void answer(long ttlSeconds) {
      deadline.cancel(false);
      future.complete(ttlSeconds);
    }

    void fail(Throwable cause) {
      deadline.cancel(false);
      future.completeExceptionally(cause);
    }
  }

  /** One {@code LeaseKeepAlive} stream and the keepalives it has not answered yet, oldest first. */
  private final class Stream
      implements ClientResponseObserver<LeaseKeepAliveRequest, LeaseKeepAliveResponse> {

    private final Lane lane;

    /** Guarded by the lane's lock, as is {@link #ended}. */
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();

    private ClientCallStreamObserver<LeaseKeepAliveRequest> requests;
    private boolean ended;

    /** Opens the stream; called under the lane's lock. */
    private Stream(Lane lane) {
      this.lane = lane;
      stub.leaseKeepAlive(this);
      streamsOpened.incrementAndGet();
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<LeaseKeepAliveRequest> requestStream) {
      this.requests = requestStream;
    }

    @Override
    public void onNext(LeaseKeepAliveResponse response) {
      Pending oldest;
      synchronized (lane.lock) {
        oldest = pending.poll();
      }
      if (oldest == null || oldest.leaseId != response.getID()) {
        Throwable cause =
            Status.INTERNAL
                .withDescription(
                    "etcd answered a keepalive of lease "
                        + Long.toHexString(response.getID())
                        + (oldest == null
                            ? " that was not asked"
                            : " where lease " + Long.toHexString(oldest.leaseId) + " was next"))
                .asRuntimeException();
        if (oldest != null) {
          oldest.fail(cause);
        }
        end(cause, true);
      } else if (response.getTTL() > 0) {
        oldest.answer(response.getTTL());
      } else {
        // A lease that expired or was revoked: etcd answers TTL 0 and the stream goes on.
        oldest.fail(
            EtcdExceptionFactory.newEtcdException(
                ErrorCode.NOT_FOUND, "etcdserver: requested lease not found"));
      }
    }

    @Override
    public void onError(Throwable error) {
      if (Errors.isInvalidTokenError(error) || Errors.isAuthStoreExpired(error)) {
        forgetToken.run();
      }
      end(error, false);
    }

    @Override
    public void onCompleted() {
      end(
          Status.UNAVAILABLE
              .withDescription("etcd ended the keepalive stream")
              .asRuntimeException(),
          false);
    }

    /** Ends the stream if {@code keepalive} is still waiting when its call timeout is up. */
    private void expire(Pending keepalive) {
      if (!keepalive.future.isDone()) {
        end(
            Status.DEADLINE_EXCEEDED
                .withDescription(
                    "etcd did not answer a keepalive within "
                        + Duration.ofNanos(callTimeoutNanos).toMillis()
                        + " ms")
                .asRuntimeException(),
            true);
      }
    }

    /**
     * Detaches the stream, so that the lane's next keepalive opens another, and fails what waits on
     * it; {@code cancel} when etcd has not ended it itself.
     */
    private void end(Throwable cause, boolean cancel) {
      List<Pending> waiting;
      synchronized (lane.lock) {
        if (ended) {
          return;
        }
        ended = true;
        streamsEnded.incrementAndGet();
        // A stream that has not ended is its lane's current one: a lane opens the next only now.
        lane.current = null;
        waiting = new ArrayList<>(pending);
        pending.clear();
        if (cancel) {
          requests.cancel("the keepalive stream was ended by the lock server", cause);
        }
      }
      log.atDebug()
          .addKeyValue("event", "lock.etcd.keepalive_stream_ended")
          .addKeyValue("code", Status.fromThrowable(cause).getCode().name())
          .addKeyValue("waiting", waiting.size())
          .log("etcd keepalive stream ended: {}", cause.getMessage());
      for (Pending keepalive : waiting) {
        keepalive.fail(cause);
      }
    }
  }
}
