package dev.fencepost.lockserver.backend.postgres;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * This instance's waiting acquires, one first-in-first-out queue per key (ADR 0208). A freed key
 * wakes the first waiter of its queue only: the next holder is one of them, so waking them all made
 * every other waiter run an acquire that could only fail, 15 of them per hand-off with 16 waiters.
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
 *   <li>A waiter that was woken but leaves without the key (its deadline, its session gone, lockdb
 *       unreachable) passes the wake to the next waiter ({@link #leave}).
 * </ul>
 *
 * A release that reaches this instance twice (its local wake, then its NOTIFY) wakes two waiters:
 * one takes the key, the other fails once and keeps its place.
 */
final class WaitQueues {

  /**
   * One waiting acquire's place; guarded by the owning {@link WaitQueues}' lock. Until it leaves, a
   * ticket is in its key's queue exactly when it is not woken: a wake takes it out, and the next
   * attempt puts it back.
   */
  static final class Ticket {
    private final String key;
    private final Condition signal;
    private boolean woken;
    private boolean asleep;

    private Ticket(String key, Condition signal) {
      this.key = key;
      this.signal = signal;
    }
  }

  private final ReentrantLock lock = new ReentrantLock();
  private final Map<String, ArrayDeque<Ticket>> queues = new HashMap<>();

  /** Joins the end of {@code key}'s queue: call before the first attempt. */
  Ticket join(String key) {
    lock.lock();
    try {
      Ticket ticket = new Ticket(key, lock.newCondition());
      queues.computeIfAbsent(key, k -> new ArrayDeque<>()).addLast(ticket);
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
  void beforeAttempt(Ticket ticket) {
    lock.lock();
    try {
      if (ticket.woken) {
        ticket.woken = false;
        queues.computeIfAbsent(ticket.key, k -> new ArrayDeque<>()).addFirst(ticket);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * After a failed attempt: true if the ticket was woken while the attempt ran, whose failure may
   * then predate the release; the caller attempts again rather than wait.
   */
  boolean woken(Ticket ticket) {
    lock.lock();
    try {
      return ticket.woken;
    } finally {
      lock.unlock();
    }
  }

  /** Waits up to {@code nanos} for the ticket to be woken; true if it was. */
  boolean await(Ticket ticket, long nanos) {
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
   * The waiter is done: granted, or giving up. A wake it received and did not use for a grant goes
   * to the next waiter of the key.
   */
  void leave(Ticket ticket, boolean granted) {
    lock.lock();
    try {
      if (!ticket.woken) {
        ArrayDeque<Ticket> queue = queues.get(ticket.key);
        queue.remove(ticket);
        dropIfEmpty(ticket.key, queue);
      } else if (!granted) {
        wakeFirst(ticket.key);
      }
      ticket.woken = false;
    } finally {
      lock.unlock();
    }
  }

  /** {@code key} was freed: wakes its first waiter, if it has one. */
  void wake(String key) {
    lock.lock();
    try {
      wakeFirst(key);
    } finally {
      lock.unlock();
    }
  }

  /** Wakes every waiter of every key: after a gap in which frees may have gone unheard. */
  void wakeAll() {
    lock.lock();
    try {
      for (ArrayDeque<Ticket> queue : queues.values()) {
        for (Ticket ticket : queue) {
          ticket.woken = true;
          ticket.signal.signal();
        }
      }
      queues.clear();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waiters of {@code key} asleep in {@link #await} and not woken (for tests: with every waiter
   * asleep, nothing is in flight).
   */
  int asleep(String key) {
    lock.lock();
    try {
      ArrayDeque<Ticket> queue = queues.get(key);
      return queue == null ? 0 : (int) queue.stream().filter(t -> t.asleep).count();
    } finally {
      lock.unlock();
    }
  }

  private void wakeFirst(String key) {
    ArrayDeque<Ticket> queue = queues.get(key);
    if (queue == null) {
      return;
    }
    Ticket first = queue.pollFirst();
    dropIfEmpty(key, queue);
    if (first != null) {
      first.woken = true;
      first.signal.signal();
    }
  }

  private void dropIfEmpty(String key, ArrayDeque<Ticket> queue) {
    if (queue != null && queue.isEmpty()) {
      queues.remove(key);
    }
  }
}
