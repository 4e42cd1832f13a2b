package dev.fencepost.lockserver.backend;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * This instance's waiting acquires, one first-in-first-out queue per key (ADR 0208), for a backend
 * that is told when a key is freed: the PostgreSQL backend by its NOTIFY listener, the etcd backend
 * by a watch per key (ADR 0214). A freed key wakes the first waiter of its queue only: the next
 * holder is one of them, so waking them all made every other waiter run an acquire that could only
 * fail, 15 of them per hand-off with 16 waiters.
 *
 * <p>A wake is a hint that the key was freed after the waiter joined its queue; the database still
 * decides every grant. No wake is lost, because of three rules:
 *
 * <ul>
 *   <li>A waiter joins its queue before its first attempt. A key freed before the join is seen free
 *       by that attempt, and one freed after it finds the waiter queued.
 *   <li>A waiter woken during an attempt that then fails tries again at once, from its old place at
 *       the head: the failure may predate the release that woke it ({@link #beforeAttempt}, {@link
 *       #woken}).
 *   <li>A waiter that was woken but leaves without the key passes the wake to the next waiter
 *       ({@link #leave}): whether it leaves before attempting (its deadline) or after an attempt
 *       that gave no answer (its session gone, lockdb unreachable). Only an attempt that found the
 *       key held used its wake up ({@link #foundHeld}): that holder's free wakes the queue again.
 * </ul>
 *
 * While a woken waiter of a key has not yet begun its next attempt, a further wake of that key
 * wakes nobody (ADR 0212): that attempt reads the key after the free that sent it, so a second
 * waiter could only race the first for the key and, winning, take it out of turn. A release reaches
 * this instance twice, its local wake and then its NOTIFY (or watch event), and the second used to
 * wake the next waiter too.
 */
public final class WaitQueues {

  /**
   * One waiting acquire's place; guarded by the owning {@link WaitQueues}' lock. Until it leaves, a
   * ticket is in its key's queue exactly when it is not woken: a wake takes it out, and the next
   * attempt puts it back.
   */
  public static final class Ticket {
    private final String key;
    private final Condition signal;
    private boolean woken;
    private boolean asleep;

    /**
     * The attempt under way (or the last one) began on a wake, and has not found the key held: a
     * waiter that leaves with this set owes the wake to the next one.
     */
    private boolean attemptOnWake;

    private Ticket(String key, Condition signal) {
      this.key = key;
      this.signal = signal;
    }
  }

  /** A key's queue and how many of its waiters are woken and have not yet attempted. */
  private static final class Waiters {
    private final ArrayDeque<Ticket> queue = new ArrayDeque<>();
    private int woken;
  }

  private final ReentrantLock lock = new ReentrantLock();
  private final Map<String, Waiters> keys = new HashMap<>();

  /** Joins the end of {@code key}'s queue: call before the first attempt. */
  public Ticket join(String key) {
    lock.lock();
    try {
      Ticket ticket = new Ticket(key, lock.newCondition());
      waiters(key).queue.addLast(ticket);
      return ticket;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Just before each attempt: a wake the ticket received is used up by this attempt, which sees
   * every release before it, and the ticket goes back to the head of its queue, its old place, for
   * the releases after.
   */
  public void beforeAttempt(Ticket ticket) {
    lock.lock();
    try {
      ticket.attemptOnWake = ticket.woken;
      if (ticket.woken) {
        ticket.woken = false;
        Waiters waiters = waiters(ticket.key);
        waiters.woken--;
        waiters.queue.addFirst(ticket);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * After an attempt that found the key held: a wake that attempt began on is used up, because the
   * holder's free wakes the queue again. An attempt that ends without this (it threw: the session
   * gone, lockdb unreachable) leaves its wake owed to the next waiter ({@link #leave}).
   */
  public void foundHeld(Ticket ticket) {
    lock.lock();
    try {
      ticket.attemptOnWake = false;
    } finally {
      lock.unlock();
    }
  }

  /**
   * After a failed attempt: true if the ticket was woken while the attempt ran, whose failure may
   * then predate the release; the caller attempts again rather than wait.
   */
  public boolean woken(Ticket ticket) {
    lock.lock();
    try {
      return ticket.woken;
    } finally {
      lock.unlock();
    }
  }

  /** Waits up to {@code nanos} for the ticket to be woken; true if it was. */
  public boolean await(Ticket ticket, long nanos) {
    lock.lock();
    try {
      long left = nanos;
      ticket.asleep = true;
      while (!ticket.woken && left > 0) {
        left = ticket.signal.awaitNanos(left);
      }
      return ticket.woken;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return ticket.woken;
    } finally {
      ticket.asleep = false;
      lock.unlock();
    }
  }

  /**
   * The waiter is done: granted, or giving up. A wake it received and did not use goes to the next
   * waiter of the key: one it had not yet attempted on, or one whose attempt neither got the key
   * nor found it held. Without that, a freed key whose first waiters' sessions had gone left the
   * others asleep until their deadlines or the old holder's expiry.
   */
  public void leave(Ticket ticket, boolean granted) {
    lock.lock();
    try {
      Waiters waiters = keys.get(ticket.key);
      if (!ticket.woken) {
        waiters.queue.remove(ticket);
        if (!granted && ticket.attemptOnWake) {
          wakeFirst(waiters);
        }
      } else {
        ticket.woken = false;
        waiters.woken--;
        if (!granted) {
          wakeFirst(waiters);
        }
      }
      dropIfIdle(ticket.key, waiters);
    } finally {
      lock.unlock();
    }
  }

  /** {@code key} was freed: wakes its first waiter, unless a woken one has yet to attempt. */
  public void wake(String key) {
    lock.lock();
    try {
      Waiters waiters = keys.get(key);
      if (waiters != null) {
        wakeFirst(waiters);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Wakes every waiter of {@code key}: after a gap in which its frees may have gone unheard. */
  public void wakeAll(String key) {
    lock.lock();
    try {
      Waiters waiters = keys.get(key);
      if (waiters != null) {
        wakeEvery(waiters);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Wakes every waiter of every key: after a gap in which frees may have gone unheard. */
  public void wakeAll() {
    lock.lock();
    try {
      keys.values().forEach(WaitQueues::wakeEvery);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waiters of {@code key} asleep in {@link #await} and not woken (for tests: with every waiter
   * asleep, nothing is in flight).
   */
  public int asleep(String key) {
    lock.lock();
    try {
      Waiters waiters = keys.get(key);
      return waiters == null ? 0 : (int) waiters.queue.stream().filter(t -> t.asleep).count();
    } finally {
      lock.unlock();
    }
  }

  private Waiters waiters(String key) {
    return keys.computeIfAbsent(key, k -> new Waiters());
  }

  private static void wakeFirst(Waiters waiters) {
    if (waiters.woken == 0 && !waiters.queue.isEmpty()) {
      wake(waiters, waiters.queue.pollFirst());
    }
  }

  private static void wakeEvery(Waiters waiters) {
    while (!waiters.queue.isEmpty()) {
      wake(waiters, waiters.queue.pollFirst());
    }
  }

  private static void wake(Waiters waiters, Ticket ticket) {
    ticket.woken = true;
    waiters.woken++;
    ticket.signal.signal();
  }

  private void dropIfIdle(String key, Waiters waiters) {
    if (waiters.queue.isEmpty() && waiters.woken == 0) {
      keys.remove(key);
    }
  }
}
