package dev.fencepost.payoutjob;

import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.PaymentResource;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutId;
import dev.fencepost.payment.PayoutState;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 */
public class PayoutCandidateReader implements ItemReader<Payout> {

  private static final List<PayoutState> RECOVERABLE =
      List.of(PayoutState.CLAIMED, PayoutState.RAIL_SUBMITTED, PayoutState.RAIL_ACKED);

  private final PaymentResource paydb;
  private final int pageSize;
  private final int maxAttempts;
  private final Deque<Payout> queue = new ArrayDeque<>();
  private final Map<PayoutId, Integer> attempts = new HashMap<>();
  private final Set<AccountId> inFlight = new HashSet<>();
  private boolean exhausted;

  public PayoutCandidateReader(PaymentResource paydb, int pageSize, int maxAttempts) {
    this.paydb = paydb;
    this.pageSize = pageSize;
    this.maxAttempts = maxAttempts;
  }

  @Override
  public Payout read() throws InterruptedException {
    while (true) {
      Payout next = take();
      if (next == null) {
        return null;
      }
      // Outside the monitor: the other threads need not wait for this query.
      boolean actionable;
      try {
        actionable = stillActionable(next);
      } catch (RuntimeException e) {
        done(next);
        throw e;
      }
      if (actionable) {
        return next;
      }
      done(next);
    }
  }

  /**
   * The attempt at {@code payout} ended (whatever its outcome): its account may be handed out
   * again. The step calls this after each processed item; a single-threaded run may skip it.
   */
  public synchronized void done(Payout payout) {
    if (inFlight.remove(payout.accountId())) {
      notifyAll();
    }
  }

  private synchronized Payout take() throws InterruptedException {
    while (true) {
      if (queue.isEmpty() && !exhausted) {
        refill();
        if (queue.isEmpty()) {
          if (inFlight.isEmpty()) {
            exhausted = true;
          } else {
            // Another thread's payout, once finished, may make its account's next one a candidate.
            wait();
            continue;
          }
        }
      }
      Payout next = queue.poll();
      if (next == null) {
        return null;
      }
      if (inFlight.add(next.accountId())) {
        return next;
      }
      // Its account is with another thread of this process: forget it, the attempt is not
      // counted, and a later query offers it again if it is still to do.
      attempts.merge(next.id(), -1, Integer::sum);
    }
  }

  /**
   * Work avoidance, not a decision: a queued candidate that another worker has meanwhile finished
   * (or left ambiguous) is dropped without taking its account's lock. Racing workers (UC-02) see
   * the same pages, so most of them would otherwise queue on a lock only to find the payout done.
   * The decision is still the re-read inside the grant (FR-14).
   */
  private boolean stillActionable(Payout candidate) {
    return paydb.findPayout(candidate.id()).map(p -> p.state() == candidate.state()).orElse(false);
  }

  private void refill() {
    List<Payout> recover = new ArrayList<>();
    for (PayoutState state : RECOVERABLE) {
      recover.addAll(paydb.inState(state, pageSize));
    }
    List<Payout> pending = new ArrayList<>(paydb.pendingCandidates(pageSize));
    Collections.shuffle(recover);
    Collections.shuffle(pending);
    offer(recover);
    offer(pending);
  }

  private void offer(List<Payout> page) {
    for (Payout payout : page) {
      if (inFlight.contains(payout.accountId())) {
        continue; // with another thread of this process; offered again by a later query
      }
      int tried = attempts.getOrDefault(payout.id(), 0);
      if (tried < maxAttempts) {
        attempts.put(payout.id(), tried + 1);
        queue.add(payout);
      }
    }
  }
}
