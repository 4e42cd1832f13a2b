package dev.fencepost.lockserver.service;

import dev.fencepost.lock.SessionId;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the acquires that may wait on this instance, in total and per session, and refuses one
 * more beyond either bound. A waiting acquire holds its request thread until it is granted or its
 * wait ends, so without this bound enough of them take every thread Tomcat has and keepalives queue
 * behind them until their sessions expire (ADR 0165).
 */
final class WaitingAcquires {

  private final int max;
  private final int maxPerSession;
  private final AtomicInteger total = new AtomicInteger();
  private final ConcurrentMap<SessionId, Integer> perSession = new ConcurrentHashMap<>();

  WaitingAcquires(int max, int maxPerSession) {
    this.max = max;
    this.maxPerSession = maxPerSession;
  }

  /**
   * Takes a place for one waiting acquire of {@code session}, or says which bound is reached.
   *
   * @return null when a place was taken (give it back with {@link #leave}), else the bound reached
   */
  CapacityExceededException.Limit enter(SessionId session) {
    if (total.incrementAndGet() > max) {
      total.decrementAndGet();
      return CapacityExceededException.Limit.WAITING_ACQUIRES;
    }
    boolean[] refused = {false};
    perSession.compute(
        session,
        (s, n) -> {
          int now = n == null ? 0 : n;
          if (now >= maxPerSession) {
            refused[0] = true;
            return n;
          }
          return now + 1;
        });
    if (refused[0]) {
      total.decrementAndGet();
      return CapacityExceededException.Limit.SESSION_WAITING_ACQUIRES;
    }
    return null;
  }

  /** Gives back the place {@link #enter} took for {@code session}. */
  void leave(SessionId session) {
    perSession.computeIfPresent(session, (s, n) -> n <= 1 ? null : n - 1);
    total.decrementAndGet();
  }

  int waiting() {
    return total.get();
  }

  int max() {
    return max;
  }

  int maxPerSession() {
    return maxPerSession;
  }
}
