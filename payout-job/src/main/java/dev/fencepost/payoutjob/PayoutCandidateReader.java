package dev.fencepost.payoutjob;

import dev.fencepost.payment.PaymentResource;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutId;
import dev.fencepost.payment.PayoutState;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * the grant (FR-14). Thread-safe.
 */
public class PayoutCandidateReader implements ItemReader<Payout> {

  private static final List<PayoutState> RECOVERABLE =
      List.of(PayoutState.CLAIMED, PayoutState.RAIL_SUBMITTED, PayoutState.RAIL_ACKED);

  private final PaymentResource paydb;
  private final int pageSize;
  private final int maxAttempts;
  private final Deque<Payout> queue = new ArrayDeque<>();
  private final Map<PayoutId, Integer> attempts = new HashMap<>();
  private boolean exhausted;

  public PayoutCandidateReader(PaymentResource paydb, int pageSize, int maxAttempts) {
    this.paydb = paydb;
    this.pageSize = pageSize;
    this.maxAttempts = maxAttempts;
  }

  @Override
  public synchronized Payout read() {
    while (true) {
      if (queue.isEmpty() && !exhausted) {
        refill();
        exhausted = queue.isEmpty();
      }
      Payout next = queue.poll();
      if (next == null || stillActionable(next)) {
        return next;
      }
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
      int tried = attempts.getOrDefault(payout.id(), 0);
      if (tried < maxAttempts) {
        attempts.put(payout.id(), tried + 1);
        queue.add(payout);
      }
    }
  }
}
