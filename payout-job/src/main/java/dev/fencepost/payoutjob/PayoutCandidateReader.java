package dev.fencepost.payoutjob;

import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.PaymentResource;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutId;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payment.PendingCandidate;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.batch.core.listener.ChunkListener;
import org.springframework.batch.core.scope.context.ChunkContext;
import org.springframework.batch.infrastructure.item.ItemReader;

/**
 * Candidates for one run: first what is in flight and actionable (CLAIMED, RAIL_SUBMITTED,
 * RAIL_ACKED: recovery, UC-04), then the oldest PENDING payout of each account with nothing in
 * flight (payment-resource's {@code pendingCandidates}, A-15). RAIL_AMBIGUOUS is never a candidate
 * (FR-23). When the queue is empty it asks paydb again, so one run drains an account's payouts one
 * after another; it ends when a fresh query offers nothing it may still try (each payout at most
 * {@code maxAttemptsPerRun} times per run, so a held lock or an unreachable proxy cannot keep a run
 * alive forever). Each page is shuffled, so concurrent workers (UC-02) start on different accounts
 * instead of queueing on the same locks. A candidate is only a hint: the processor re-reads inside
 * the grant (FR-14).
 *
 * <p>Thread-safe, for a step with several payout threads (ADR 0063): an account handed to one
 * thread is not handed to another until {@link #done} says its attempt ended, so two threads of one
 * process never queue on the same lock (the starter would refuse the second local acquire anyway,
 * ADR 0023), and a thread that finds nothing to offer while others are still working waits for
 * them, because finishing an account's payout is what makes its next payout a candidate.
 *
 * <p>Chunks of several payouts (ADR 0207): only a chunk's first {@link #read} may wait. Every later
 * candidate of the chunk is taken by {@link #prefetch}, which never waits, because a thread that
 * holds candidates it has not yet executed would otherwise wait for its own accounts. Whatever a
 * chunk took and did not finish is handed back when the chunk ends ({@link #afterChunk}, {@link
 * #afterChunkError}), so a chunk that fails cannot keep its accounts from the other threads.
 *
 * <p>A grant that goes on to its account's next payouts (ADR 0236) keeps the thread on one account
 * while the rest of its chunk waits; {@link #grantMayGoOn} ends such a run as soon as another
 * thread is left with nothing to do (ADR 0237), and {@link #payoutsForGrant} keeps it from looking
 * for more of the account's payouts than its page counted (ADR 0238).
 */
public class PayoutCandidateReader implements ItemReader<Payout>, ChunkListener {

  private static final List<PayoutState> RECOVERABLE =
      List.of(PayoutState.CLAIMED, PayoutState.RAIL_SUBMITTED, PayoutState.RAIL_ACKED);

  private final PaymentResource paydb;
  private final int pageSize;
  private final int maxAttempts;
  private final Deque<Payout> queue = new ArrayDeque<>();
  private final Map<PayoutId, Integer> attempts = new HashMap<>();
  private final Set<AccountId> inFlight = new HashSet<>();

  /**
   * For each PENDING candidate queued or handed out, its account's PENDING payouts when its page
   * was read (ADR 0238); forgotten when the candidate is dropped or done.
   */
  private final Map<PayoutId, Integer> accountPending = new HashMap<>();

  private boolean exhausted;

  /** Payout threads inside {@link #take} waiting for another thread's attempt to end. */
  private int waiting;

  /** What this thread's chunk took and has not finished: handed back at the chunk's end. */
  private final ThreadLocal<List<Payout>> held = ThreadLocal.withInitial(ArrayList::new);

  /** A candidate {@link #prefetch} took for this thread's next {@link #read}. */
  private final ThreadLocal<Payout> prefetched = new ThreadLocal<>();

  /** The chunk's first candidate, checked by {@link #read} a moment before its turn. */
  private final ThreadLocal<Payout> checkedAtRead = new ThreadLocal<>();

  public PayoutCandidateReader(PaymentResource paydb, int pageSize, int maxAttempts) {
    this.paydb = paydb;
    this.pageSize = pageSize;
    this.maxAttempts = maxAttempts;
  }

  /**
   * The next candidate for this thread, or null when the run has nothing more it may try. Waits
   * while other threads' attempts may still make a candidate, which is safe only at a chunk's
   * start, when this thread holds nothing: later reads of a chunk return what {@link #prefetch}
   * took.
   */
  @Override
  public Payout read() throws InterruptedException {
    Payout next = prefetched.get();
    if (next != null) {
      prefetched.remove();
      return next;
    }
    if (!held.get().isEmpty()) {
      throw new IllegalStateException(
          "a payout thread read again while holding candidates it has not executed: only"
              + " prefetch may add to a chunk (ADR 0207)");
    }
    while (true) {
      next = take(true);
      if (next == null) {
        return null;
      }
      // Checked now, since its attempt starts as soon as the rest of the chunk is taken (in
      // memory); a candidate found moved on is not read at all.
      boolean current = false;
      try {
        current = stillCandidate(next);
      } finally {
        if (!current) {
          done(next);
        }
      }
      if (current) {
        checkedAtRead.set(next);
        return next;
      }
    }
  }

  /**
   * Takes this thread's next candidate for {@link #read} if one is ready now; never waits. False
   * when none is: the chunk ends there (ADR 0207).
   */
  public boolean prefetch() {
    if (prefetched.get() != null) {
      return true;
    }
    Payout next;
    try {
      next = take(false);
    } catch (InterruptedException e) { // take(false) does not wait; kept for the flag's sake
      Thread.currentThread().interrupt();
      return false;
    }
    if (next == null) {
      return false;
    }
    prefetched.set(next);
    return true;
  }

  /**
   * The attempt at {@code payout} ended (whatever its outcome): its account may be handed out
   * again. The step calls this after each processed item, whatever its outcome.
   */
  public void done(Payout payout) {
    held.get().remove(payout);
    release(payout);
  }

  /**
   * Whether the payout thread calling, which holds a grant, may go on under it to its account's
   * next payout (ADR 0237). Not while another payout thread of this process waits for work and this
   * one holds candidates of its chunk that it has not reached yet: those accounts are out of the
   * waiting thread's reach until this thread gets to them, so it moves on to them and lets the
   * waiting thread have the account it releases. A thread holding nothing else goes on whoever
   * waits: giving the account up would only hand its next payout to another thread, to run just as
   * serially under a new grant.
   */
  public boolean grantMayGoOn() {
    return held.get().size() <= 1 || !threadsWaiting();
  }

  private synchronized boolean threadsWaiting() {
    return waiting > 0;
  }

  /**
   * How many payouts the grant for {@code candidate}, taken by this thread and not yet done, may
   * carry: {@code max}, or fewer when the page that offered it counted fewer PENDING payouts of its
   * account (ADR 0238). Past that count the account's next payout was not there when the page was
   * read, so looking for it would, as a rule, be a read of paydb that finds nothing; one created
   * since is offered by a later page, under a grant of its own. A recovery candidate, whose page
   * counts nothing, may carry {@code max}.
   */
  public synchronized int payoutsForGrant(Payout candidate, int max) {
    Integer counted = accountPending.get(candidate.id());
    return counted == null ? max : Math.min(max, counted);
  }

  /** The chunk committed: everything it took was executed and is already done. */
  @Override
  public void afterChunk(ChunkContext context) {
    handBack();
  }

  /** The chunk failed: what it took and did not execute goes back to the other threads. */
  @Override
  public void afterChunkError(ChunkContext context) {
    handBack();
  }

  /** A prefetched candidate is held too: everything this thread took and did not finish. */
  private void handBack() {
    prefetched.remove();
    checkedAtRead.remove();
    for (Payout payout : List.copyOf(held.get())) {
      done(payout);
    }
    held.remove(); // the thread may outlive the step (a single-threaded run is the caller's)
  }

  private synchronized void release(Payout payout) {
    accountPending.remove(payout.id());
    if (inFlight.remove(payout.accountId())) {
      notifyAll();
    }
  }

  private synchronized Payout take(boolean mayWait) throws InterruptedException {
    while (true) {
      if (queue.isEmpty() && !exhausted) {
        refill();
        if (queue.isEmpty()) {
          if (!mayWait) {
            return null;
          }
          if (inFlight.isEmpty()) {
            exhausted = true;
          } else {
            // Another thread's payout, once finished, may make its account's next one a candidate.
            waiting++;
            try {
              wait();
            } finally {
              waiting--;
            }
            continue;
          }
        }
      }
      Payout next = queue.poll();
      if (next == null) {
        return null;
      }
      if (inFlight.add(next.accountId())) {
        held.get().add(next);
        return next;
      }
      // Its account is with another thread of this process: forget it, the attempt is not
      // counted, and a later query offers it again if it is still to do.
      attempts.merge(next.id(), -1, Integer::sum);
      accountPending.remove(next.id());
    }
  }

  /**
   * Whether {@code candidate}, whose turn in its chunk has come, may be attempted now. Work
   * avoidance, not a decision: a candidate that another worker has meanwhile taken, finished or
   * left ambiguous is dropped without asking for its account's lock. Racing workers (UC-02) see the
   * same pages, so many candidates would otherwise queue on a lock only to find the payout done. A
   * chunk's first candidate was checked as it was read, a moment before its turn; a prefetched one
   * may have waited several attempts, so it is checked again now (ADR 0207). The decision is still
   * the re-read inside the grant (FR-14).
   */
  public boolean turnCame(Payout candidate) {
    if (candidate.equals(checkedAtRead.get())) {
      checkedAtRead.remove();
      return true;
    }
    return stillCandidate(candidate);
  }

  private boolean stillCandidate(Payout candidate) {
    return paydb.findPayout(candidate.id()).map(p -> p.state() == candidate.state()).orElse(false);
  }

  private void refill() {
    List<Payout> recover = new ArrayList<>();
    for (PayoutState state : RECOVERABLE) {
      recover.addAll(paydb.inState(state, pageSize));
    }
    List<PendingCandidate> pending = new ArrayList<>(paydb.pendingCandidates(pageSize));
    Collections.shuffle(recover);
    Collections.shuffle(pending);
    recover.forEach(this::offer);
    for (PendingCandidate candidate : pending) {
      if (offer(candidate.payout())) {
        accountPending.put(candidate.payout().id(), candidate.accountPending());
      }
    }
  }

  /** Queues {@code payout} unless its account is taken or it was tried enough; whether it was. */
  private boolean offer(Payout payout) {
    if (inFlight.contains(payout.accountId())) {
      return false; // with another thread of this process; offered again by a later query
    }
    int tried = attempts.getOrDefault(payout.id(), 0);
    if (tried >= maxAttempts) {
      return false;
    }
    attempts.put(payout.id(), tried + 1);
    queue.add(payout);
    return true;
  }
}
