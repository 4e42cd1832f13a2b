package dev.fencepost.lockserver.backend.etcd;

import dev.fencepost.lockserver.backend.BackendUnavailableException;
import io.etcd.jetcd.common.exception.EtcdException;
import io.etcd.jetcd.support.Errors;
import io.grpc.Status;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the backend waits for etcd. Two bounds: each RPC carries a gRPC deadline of the call timeout
 * (set by {@link EtcdClients}), and each backend operation gives up after the operation timeout.
 * Transient failures of calls that are safe to repeat are retried with a short backoff within the
 * operation timeout; whatever is still failing becomes {@link BackendUnavailableException} (the
 * lock server answers 503, clients fail closed, UC-08).
 *
 * <p>Why two: a request that reached a follower just as the leader died is never answered (its
 * proposal went to the dead leader), so it can only end by its deadline. A short per-RPC deadline
 * ends it soon after the election, and the retry lands on the new leader within the same operation.
 *
 * <p>With etcd's authentication on (ADR 0158), two refusals mean only that the call's token is
 * stale: etcd forgot it ({@code invalid auth token}, before the request is proposed) or the auth
 * store changed since it was issued ({@code revision of auth store is old}, refused when applied,
 * on every member alike). Neither applied anything, and jetcd fetches a new token on seeing them,
 * so both are retried, even by {@link #once}. A permission refusal (the role lacks the key) or a
 * failed authentication is not retried: it becomes {@link BackendUnavailableException} at once,
 * logged as {@code lock.etcd.access_denied}.
 *
 * <p>Threads: the caller's request thread blocks here, never a jetcd or gRPC event-loop thread; no
 * continuation is chained onto jetcd's futures.
 */
final class EtcdCalls {

  private static final Logger log = LoggerFactory.getLogger(EtcdCalls.class);

  /** What etcd answers while it cannot serve right now: leader lost, election, overload. */
  private static final Set<Status.Code> TRANSIENT =
      Set.of(
          Status.Code.UNAVAILABLE,
          Status.Code.DEADLINE_EXCEEDED,
          Status.Code.ABORTED,
          Status.Code.RESOURCE_EXHAUSTED,
          Status.Code.UNKNOWN,
          Status.Code.INTERNAL);

  private static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
  private static final long MAX_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  private final Duration operationTimeout;

  EtcdCalls(Duration operationTimeout) {
    this.operationTimeout = operationTimeout;
  }

  /** A deadline one operation timeout from now, in {@link System#nanoTime()} terms. */
  long deadline() {
    return System.nanoTime() + operationTimeout.toNanos();
  }

  /**
   * Runs a call that is safe to repeat (a read, a keepalive, a put-if-absent that recognises its
   * own earlier success), retrying transient failures until {@code deadline}.
   *
   * @throws LeaseNotFound if etcd says the lease named in the call does not exist
   */
  <T> T idempotent(String operation, long deadline, Supplier<CompletableFuture<T>> call) {
    long backoff = FIRST_BACKOFF_NANOS;
    int attempt = 0;
    while (true) {
      attempt++;
      try {
        return await(call.get(), deadline);
      } catch (Failure failure) {
        long left = deadline - System.nanoTime();
        if (!failure.isTransient() || left <= backoff) {
          throw unavailable(operation, attempt, failure);
        }
        logRetry(operation, attempt, failure);
        if (failure.isStaleToken()) {
          // jetcd already fetched a new token; an immediate retry uses it.
          continue;
        }
        // Back off briefly so an election in progress is not hammered; bounded by the deadline.
        LockSupport.parkNanos(backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_NANOS);
      }
    }
  }

  /**
   * Runs a call once: a conditional delete whose outcome is unknown after a lost response must not
   * be repeated blindly, so any failure becomes {@link BackendUnavailableException} at once.
   *
   * @throws LeaseNotFound if etcd says the lease named in the call does not exist
   */
  <T> T once(String operation, Supplier<CompletableFuture<T>> call) {
    long deadline = deadline();
    int attempt = 0;
    while (true) {
      attempt++;
      try {
        return await(call.get(), deadline);
      } catch (Failure failure) {
        // A stale token applied nothing: the same call with jetcd's new token is not a repeat.
        if (!failure.isStaleToken() || deadline - System.nanoTime() <= FIRST_BACKOFF_NANOS) {
          throw unavailable(operation, attempt, failure);
        }
        logRetry(operation, attempt, failure);
      }
    }
  }

  private static void logRetry(String operation, int attempt, Failure failure) {
    log.atDebug()
        .addKeyValue("event", "lock.etcd.retry")
        .addKeyValue("operation", operation)
        .addKeyValue("attempt", attempt)
        .addKeyValue("code", failure.code().name())
        .log("retrying etcd call after a transient failure");
  }

  private <T> T await(CompletableFuture<T> future, long deadline) {
    long left = Math.max(deadline - System.nanoTime(), 1);
    try {
      return future.get(left, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      // The RPC itself carries a gRPC deadline of one call timeout, so it cannot linger for long.
      future.cancel(false);
      throw new Failure(Status.Code.DEADLINE_EXCEEDED, e);
    } catch (InterruptedException e) {
      future.cancel(false);
      Thread.currentThread().interrupt();
      throw new BackendUnavailableException("interrupted while waiting for etcd", e);
    } catch (ExecutionException | CompletionException e) {
      throw classify(e.getCause() == null ? e : e.getCause());
    }
  }

  private static RuntimeException classify(Throwable cause) {
    if (isLeaseNotFound(cause)) {
      return new LeaseNotFound(cause);
    }
    Status.Code code =
        cause instanceof EtcdException etcd
            // jetcd's ErrorCode mirrors the gRPC codes name for name.
            ? Status.Code.valueOf(etcd.getErrorCode().name())
            : Status.fromThrowable(cause).getCode();
    if (code == Status.Code.UNAUTHENTICATED) {
      // jetcd reports a token it could not fetch as UNAUTHENTICATED, whatever stopped the fetch:
      // an unreachable or leaderless etcd is transient, not a refusal.
      code = tokenFetchFailure(cause).orElse(code);
    }
    return new Failure(code, cause);
  }

  private static Optional<Status.Code> tokenFetchFailure(Throwable error) {
    Throwable t = error.getCause();
    for (int depth = 0; t != null && depth < 10; depth++, t = t.getCause()) {
      Status.Code code = Status.fromThrowable(t).getCode();
      if (code != Status.Code.UNAUTHENTICATED && TRANSIENT.contains(code)) {
        return Optional.of(code);
      }
    }
    return Optional.empty();
  }

  /** etcd's own words for a lease that expired or was revoked (gRPC NOT_FOUND). */
  static boolean isLeaseNotFound(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      String message = t.getMessage();
      if (message != null && message.contains("requested lease not found")) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  private BackendUnavailableException unavailable(String operation, int attempts, Failure failure) {
    if (failure.isAccessDenied()) {
      log.atWarn()
          .addKeyValue("event", "lock.etcd.access_denied")
          .addKeyValue("operation", operation)
          .addKeyValue("code", failure.code().name())
          .addKeyValue("detail", String.valueOf(failure.getCause().getMessage()))
          .log("etcd refused " + operation + ": check the lock server's etcd user and role");
      return new BackendUnavailableException(
          "etcd refused " + operation + " (" + failure.code() + ")", failure.getCause());
    }
    log.atWarn()
        .addKeyValue("event", "lock.etcd.unavailable")
        .addKeyValue("operation", operation)
        .addKeyValue("attempts", attempts)
        .addKeyValue("code", failure.code().name())
        .addKeyValue("detail", String.valueOf(failure.getCause().getMessage()))
        .log("etcd did not answer " + operation + " within the operation timeout");
    return new BackendUnavailableException(
        "etcd did not answer " + operation + " (" + failure.code() + ")", failure.getCause());
  }

  /** A failed etcd call, with the gRPC code that decides whether it may be retried. */
  static final class Failure extends RuntimeException {
    private final Status.Code code;

    Failure(Status.Code code, Throwable cause) {
      super(cause.getMessage(), cause, false, false);
      this.code = code;
    }

    Status.Code code() {
      return code;
    }

    boolean isTransient() {
      return TRANSIENT.contains(code) || isStaleToken();
    }

    /** etcd refused the call's token as expired or issued before the auth store last changed. */
    boolean isStaleToken() {
      for (Throwable t = getCause(); t != null; t = t.getCause()) {
        String message = t.getMessage();
        if (message != null
            && (message.contains(Errors.INVALID_AUTH_TOKEN_ERROR_MESSAGE)
                || message.contains(Errors.ERROR_AUTH_STORE_OLD))) {
          return true;
        }
        if (t.getCause() == t) {
          break;
        }
      }
      return false;
    }

    /** The role lacks the key, or the user could not authenticate: a configuration error. */
    boolean isAccessDenied() {
      return !isStaleToken()
          && (code == Status.Code.PERMISSION_DENIED || code == Status.Code.UNAUTHENTICATED);
    }
  }

  /** etcd answered that the lease (the session) named in the call does not exist any more. */
  static final class LeaseNotFound extends RuntimeException {
    LeaseNotFound(Throwable cause) {
      super(cause.getMessage(), cause, false, false);
    }
  }
}
