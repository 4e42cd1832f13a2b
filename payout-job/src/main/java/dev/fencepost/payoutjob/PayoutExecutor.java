package dev.fencepost.payoutjob;

import dev.fencepost.lock.FencedOutException;
import dev.fencepost.lock.FencingToken;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.client.HeldLock;
import dev.fencepost.lock.client.LockTemplate;
import dev.fencepost.payment.Actor;
import dev.fencepost.payment.ClaimAttempt;
import dev.fencepost.payment.IllegalTransitionException;
import dev.fencepost.payment.PaymentResource;
import dev.fencepost.payment.PaymentResourceException;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutId;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payment.SubmittedContent;
import dev.fencepost.payoutjob.PayoutEffectListener.Effect;
import dev.fencepost.payoutjob.PayoutEffectListener.Kind;
import dev.fencepost.payoutjob.PayoutFailpoint.Point;
import dev.fencepost.payoutjob.RailProxyClient.Answered;
import dev.fencepost.payoutjob.RailProxyClient.Duplicate;
import dev.fencepost.payoutjob.RailProxyClient.Found;
import dev.fencepost.payoutjob.RailProxyClient.Lookup;
import dev.fencepost.payoutjob.RailProxyClient.NoAnswer;
import dev.fencepost.payoutjob.RailProxyClient.NotFound;
import dev.fencepost.payoutjob.RailProxyClient.NothingSent;
import dev.fencepost.payoutjob.RailProxyClient.OutcomeNotRecorded;
import dev.fencepost.payoutjob.RailProxyClient.Refused;
import dev.fencepost.payoutjob.RailProxyClient.StaleToken;
import dev.fencepost.payoutjob.RailProxyClient.Submission;
import dev.fencepost.payoutjob.RailProxyClient.SubmitAnswer;
import dev.fencepost.payoutjob.RailProxyClient.Unavailable;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.ObjLongConsumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;

/**
 * One payout, start to finish, under the account's fenced lock (UC-01; recovery UC-04). The token
 * is passed explicitly from the grant to each guard, never through ambient state.
 *
 * <ol>
 *   <li>Acquire {@code payout:{accountId}} with {@link LockTemplate#tryExecute}: held by another
 *       worker means skip (UC-02); lock service unreachable propagates {@code
 *       LockServiceUnavailableException} after the starter's bounded jittered retries, so nothing
 *       is claimed without a grant (FR-27, FR-28, UC-08).
 *   <li>Re-read the payout inside the grant (FR-14) and act on its state, never on the snapshot
 *       that made it a candidate, and never on elapsed time (FR-24). For a candidate seen PENDING
 *       the re-read is the claim's own, made in its fenced transaction: a payout still PENDING is
 *       claimed, one moved on comes back unchanged to be acted on (ADR 0218).
 *   <li>{@link HeldLock#ensureHeld()} right before each side effect (FR-13; liveness only: the
 *       guards are the safety, INV-05).
 *   <li>A fenced refusal at either guard aborts this payout at once; its token is never used again
 *       (UC-03, FR-16).
 *   <li>Once the proxy's record says the rail acknowledged, the payout is submitted, acknowledged
 *       and posted in one paydb transaction (ADR 0219); if paydb refuses that settlement for a
 *       reason of its own, the three are made one at a time, so RAIL_ACKED is recorded even when
 *       the posting cannot be.
 * </ol>
 *
 * <p>A grant may carry several payouts of its account, one after another and oldest first (ADR
 * 0236): each is claimed under the same token, which both guards accept as long as no later grant
 * has been seen, and each is re-read by its own claim. The lock is released after the last, or as
 * soon as its lease has too little time left for another payout (ADR 0239): a run lasts seconds and
 * lives on its renewals, which an overloaded machine delays.
 *
 * <p>Recovery by state and the proxy's record: CLAIMED with no proxy record was never sent, so it
 * is re-claimed and submitted; CLAIMED or RAIL_SUBMITTED with a record is resolved from the record
 * (an unresolved or TIMEOUT record is RAIL_AMBIGUOUS, FR-23); RAIL_ACKED is posted.
 */
public final class PayoutExecutor {

  private static final Logger log = LoggerFactory.getLogger(PayoutExecutor.class);

  /**
   * Endings a grant may go on from to the account's next payout: the payout is finished, by this
   * grant or before it, and nothing about the account is left undecided.
   */
  static final Set<PayoutOutcome> GOES_ON =
      Set.of(
          PayoutOutcome.POSTED,
          PayoutOutcome.FAILED_INSUFFICIENT_FUNDS,
          PayoutOutcome.FAILED_DECLINED,
          PayoutOutcome.ALREADY_TERMINAL);

  private final LockTemplate locks;
  private final PaymentResource paydb;
  private final RailProxyClient proxy;
  private final PayoutFailpoint failpoint;
  private final PayoutEffectListener effects;
  private final Actor worker;
  private final Duration lockWait;
  private final Map<PayoutOutcome, Counter> outcomes = new EnumMap<>(PayoutOutcome.class);
  private final Map<PayoutOutcome, Timer> durations = new EnumMap<>(PayoutOutcome.class);
  private final Map<GrantRunEnd, DistributionSummary> grantRuns = new EnumMap<>(GrantRunEnd.class);

  /**
   * Why a grant's run of payouts ended, the {@code reason} tag of {@code
   * fencepost.payout.job.grant.payouts}: with the payouts each run carried, it tells how much one
   * grant is reused and what stops it (ADRs 0236 to 0239).
   */
  enum GrantRunEnd {
    /** It carried as many as it could: {@code payouts-per-grant}, or its page's count if lower. */
    BOUND,
    /** The account had no next payout ready, or paydb could not say which. */
    NOTHING_NEXT,
    /** It released the account to an idle payout thread of the process (ADR 0237). */
    GAVE_WAY,
    /**
     * Its lease had too little time left for another payout: less than twice the longest payout the
     * run had taken (ADR 0239).
     */
    LEASE_SHORT,
    /**
     * Its last payout ended where a grant does not go on from: ambiguous, deferred, fenced out,
     * lock lost, or an error.
     */
    NOT_FINISHED
  }

  public PayoutExecutor(
      LockTemplate locks,
      PaymentResource paydb,
      RailProxyClient proxy,
      PayoutFailpoint failpoint,
      PayoutEffectListener effects,
      String workerId,
      Duration lockWait,
      MeterRegistry meters) {
    this.locks = locks;
    this.paydb = paydb;
    this.proxy = proxy;
    this.failpoint = failpoint;
    this.effects = effects;
    this.worker = Actor.worker(workerId);
    this.lockWait = lockWait;
    for (PayoutOutcome outcome : PayoutOutcome.values()) {
      outcomes.put(
          outcome,
          Counter.builder("fencepost.payout.job.outcomes")
              .description("Payout attempts by how they ended")
              .tag("outcome", outcome.name())
              .register(meters));
      durations.put(
          outcome,
          Timer.builder("fencepost.payout.job.duration")
              .description(
                  "One payout attempt: from the lock's acquire, or from the end of the payout"
                      + " before it under the same grant, to its own end")
              .tag("outcome", outcome.name())
              .register(meters));
    }
    for (GrantRunEnd end : GrantRunEnd.values()) {
      grantRuns.put(
          end,
          DistributionSummary.builder("fencepost.payout.job.grant.payouts")
              .description("Payouts one grant carried, by why its run ended")
              .tag("reason", end.name())
              .register(meters));
    }
  }

  /** The worker identity recorded on claims and audit rows. */
  public Actor worker() {
    return worker;
  }

  /**
   * Executes or recovers {@code candidate} (a snapshot used only for its id and account), and
   * releases the account's lock after it.
   *
   * @throws dev.fencepost.lock.LockServiceUnavailableException when no grant can be had: fail
   *     closed, nothing was done
   */
  public PayoutResult execute(Payout candidate) {
    return execute(candidate, 1, () -> false, (result, nanos) -> {});
  }

  /**
   * Executes or recovers {@code candidate}, then, while the grant lasts, up to {@code maxPayouts}
   * payouts in all of its account, each the account's oldest PENDING one (ADR 0236). The run goes
   * on only after a payout that ended where this grant may go on from ({@link #GOES_ON}), only
   * while the lease has room for another ({@link #hasRoomForAnother}, ADR 0239), and only while
   * {@code mayGoOn} says so, asked after each such payout before the next is looked for (the step's
   * reader says no while another payout thread waits for work, ADR 0237); any other ending
   * (ambiguity, a fenced refusal, a lost lock, nothing decided) releases the lock at once, as the
   * one-payout run did. Each payout is counted, logged and handed to {@code ended} as it ends, in
   * order, with its duration in nanoseconds: from the call, or from the end of the payout before
   * it.
   *
   * @return the candidate's result
   * @throws dev.fencepost.lock.LockServiceUnavailableException when no grant can be had: fail
   *     closed, nothing was done
   */
  public PayoutResult execute(
      Payout candidate,
      int maxPayouts,
      BooleanSupplier mayGoOn,
      ObjLongConsumer<PayoutResult> ended) {
    if (maxPayouts < 1) {
      throw new IllegalArgumentException("maxPayouts must be at least 1, not " + maxPayouts);
    }
    LockKey key = LockKey.forPayoutAccount(candidate.accountId().value());
    Run run = new Run(candidate, ended);
    try {
      Optional<GrantRunEnd> held =
          locks.tryExecute(key, lockWait, lock -> underGrant(run, key, lock, maxPayouts, mayGoOn));
      if (held.isEmpty()) {
        run.ended(new PayoutResult(candidate.id(), PayoutOutcome.SKIPPED_LOCK_HELD, "lock held"));
      } else {
        run.end = held.get();
      }
    } catch (FencedOutException e) {
      // paydb refused: payment-resource has logged lock.fenced_out (guard=paydb) with both values.
      run.ended(
          new PayoutResult(
              run.current.id(),
              PayoutOutcome.FENCED_OUT,
              "paydb fence " + e.storedFence() + " > token " + e.presentedToken()));
    } catch (LockLostException e) {
      log.atWarn()
          .addKeyValue("event", "payout.aborted")
          .addKeyValue("payoutId", run.current.id())
          .addKeyValue("accountId", candidate.accountId())
          .addKeyValue("key", key)
          .addKeyValue("reason", e.reason())
          .log(
              "lock on {} lost before a side effect; payout {} left for recovery",
              key,
              run.current.id());
      run.ended(
          new PayoutResult(run.current.id(), PayoutOutcome.LOCK_LOST, String.valueOf(e.reason())));
    } finally {
      if (run.granted) {
        grantRuns.get(run.end).record(run.count);
      }
    }
    return run.first;
  }

  /** The payouts of one grant: the one under way, and what each that ended came to. */
  private final class Run {
    private final ObjLongConsumer<PayoutResult> sink;
    private Payout current;
    private PayoutResult first;
    private int count;
    private boolean granted;
    private GrantRunEnd end = GrantRunEnd.NOT_FINISHED;
    private long started = System.nanoTime();
    private long longestNanos;

    private Run(Payout candidate, ObjLongConsumer<PayoutResult> sink) {
      this.current = candidate;
      this.sink = sink;
    }

    /**
     * The payout under way ended with {@code result}: counted, logged and handed on. The next
     * payout's time starts here, so that finding it is part of its attempt.
     */
    private void ended(PayoutResult result) {
      count++;
      if (first == null) {
        first = result;
      }
      long now = System.nanoTime();
      long took = now - started;
      started = now;
      longestNanos = Math.max(longestNanos, took);
      outcomes.get(result.outcome()).increment();
      durations.get(result.outcome()).record(Duration.ofNanos(took));
      log.atInfo()
          .addKeyValue("event", "payout.attempt")
          .addKeyValue("payoutId", result.payoutId())
          .addKeyValue("accountId", current.accountId())
          .addKeyValue("outcome", result.outcome())
          .addKeyValue("detail", result.detail())
          .addKeyValue("worker", worker.id())
          .addKeyValue("grantPayout", count)
          .log("payout {} {}", result.payoutId(), result.outcome());
      sink.accept(result, took);
    }
  }

  /**
   * The grant's payouts, one after another, and why the run ended once the last has ended (a fenced
   * refusal or a lost lock ends the run by its exception instead, with the payout under way not yet
   * ended).
   */
  private GrantRunEnd underGrant(
      Run run, LockKey key, HeldLock lock, int maxPayouts, BooleanSupplier mayGoOn) {
    run.granted = true;
    while (true) {
      PayoutResult result = underGrant(run.current, key, lock);
      run.ended(result);
      if (!GOES_ON.contains(result.outcome())) {
        return GrantRunEnd.NOT_FINISHED;
      }
      if (run.count >= maxPayouts) {
        return GrantRunEnd.BOUND;
      }
      Duration remaining = lock.remaining();
      if (!hasRoomForAnother(remaining, run.longestNanos)) {
        log.atInfo()
            .addKeyValue("event", "payout.grant_run_ended")
            .addKeyValue("accountId", run.current.accountId())
            .addKeyValue("reason", GrantRunEnd.LEASE_SHORT)
            .addKeyValue("grantPayouts", run.count)
            .addKeyValue("remainingMs", remaining.toMillis())
            .addKeyValue("longestPayoutMs", Duration.ofNanos(run.longestNanos).toMillis())
            .log(
                "grant run on {} ends after {} payouts: {} ms left on its lease",
                key,
                run.count,
                remaining.toMillis());
        return GrantRunEnd.LEASE_SHORT;
      }
      if (!mayGoOn.getAsBoolean()) {
        log.atDebug()
            .addKeyValue("event", "payout.grant_run_yielded")
            .addKeyValue("accountId", run.current.accountId())
            .addKeyValue("grantPayouts", run.count)
            .log("grant run on {} gives way after {} payouts", key, run.count);
        return GrantRunEnd.GAVE_WAY;
      }
      Optional<Payout> next = nextOf(run.current);
      if (next.isEmpty()) {
        return GrantRunEnd.NOTHING_NEXT;
      }
      run.current = next.get();
    }
  }

  /**
   * Whether a lease with {@code remaining} time left has room for another payout of a run whose
   * longest payout took {@code longestNanos}: twice that, because the next payout's time is known
   * only by the ones before it, and a machine slow enough to delay the renewals slows the payouts
   * too (ADR 0239). A payout started without that room is the one that outlives the lease, is
   * stopped at {@link HeldLock#ensureHeld()} after its claim, and needs a second grant to recover.
   */
  static boolean hasRoomForAnother(Duration remaining, long longestNanos) {
    return remaining.toNanos() > 2 * longestNanos;
  }

  /**
   * The account's next payout for this grant, or none. Asking is only work avoidance: a paydb that
   * cannot answer ends the run (the lock is released as after any payout) rather than the chunk.
   */
  private Optional<Payout> nextOf(Payout done) {
    try {
      return paydb.nextPending(done.accountId());
    } catch (DataAccessException e) {
      log.atWarn()
          .addKeyValue("event", "payout.grant_run_ended")
          .addKeyValue("accountId", done.accountId())
          .addKeyValue("reason", e.getClass().getSimpleName())
          .log("could not read the next payout of {}; releasing its lock", done.accountId());
      return Optional.empty();
    }
  }

  private PayoutResult underGrant(Payout candidate, LockKey key, HeldLock lock) {
    FencingToken token = lock.token();
    PayoutId id = candidate.id();
    Payout payout = candidate;
    try {
      if (candidate.state() == PayoutState.PENDING) {
        // FR-14 without a read of its own (ADR 0218): the claim reads the payout inside its fenced
        // transaction and claims it only if it is still PENDING; otherwise it changes nothing and
        // hands back the payout as it found it, to be acted on below.
        lock.ensureHeld();
        ClaimAttempt claim = claimIfPending(candidate, token);
        if (claim.claimed()) {
          return afterClaim(claim.payout(), key, lock, token);
        }
        payout = claim.payout();
      } else {
        payout = paydb.findPayout(id).orElseThrow(); // FR-14: the truth is this re-read
      }
      return switch (payout.state()) {
        case POSTED, FAILED, ABANDONED ->
            result(id, PayoutOutcome.ALREADY_TERMINAL, "found " + payout.state());
        case RAIL_AMBIGUOUS -> result(id, PayoutOutcome.LEFT_AMBIGUOUS, "reconciler resolves it");
        case PENDING -> fromPending(payout, key, lock, token);
        case CLAIMED -> fromClaimed(payout, key, lock, token);
        case RAIL_SUBMITTED -> fromSubmitted(payout, lock, token);
        case RAIL_ACKED -> post(payout, lock, token);
      };
    } catch (IllegalTransitionException e) {
      // Under a valid grant nobody else can move this payout; a refusal here is a defect signal.
      log.atError()
          .addKeyValue("event", "payout.unexpected_transition_refusal")
          .addKeyValue("payoutId", id)
          .addKeyValue("token", token.value())
          .addKeyValue("state", payout.state())
          .log("paydb refused a transition of {} under a valid grant: {}", id, e.getMessage());
      return result(id, PayoutOutcome.DEFERRED, "transition refused: " + e.getMessage());
    }
  }

  /** Only if a payout went back to PENDING, which no transition does: claims it as read. */
  private PayoutResult fromPending(Payout payout, LockKey key, HeldLock lock, FencingToken token) {
    lock.ensureHeld();
    Payout claimed =
        write(Kind.CLAIM, payout, token, () -> paydb.claim(payout.id(), token, worker));
    return afterClaim(claimed, key, lock, token);
  }

  /**
   * The claim of a PENDING candidate, reported to the effect listener as a CLAIM only when it was
   * made (or refused): a payout found moved on was a read, as the re-read it replaces.
   */
  private ClaimAttempt claimIfPending(Payout candidate, FencingToken token) {
    return attempt(
        Kind.CLAIM,
        candidate,
        token,
        () -> paydb.claimIfPending(candidate.id(), token, worker),
        ClaimAttempt::claimed);
  }

  private PayoutResult afterClaim(Payout claimed, LockKey key, HeldLock lock, FencingToken token) {
    if (claimed.state() == PayoutState.FAILED) {
      return result(claimed.id(), PayoutOutcome.FAILED_INSUFFICIENT_FUNDS, claimed.failureReason());
    }
    failpoint.reached(Point.CLAIMED, claimed);
    return submit(claimed, key, lock, token);
  }

  private PayoutResult fromClaimed(Payout payout, LockKey key, HeldLock lock, FencingToken token) {
    Lookup record = proxy.find(payout.id());
    logRecovery(payout, token, record);
    if (record instanceof NotFound) {
      // No record: nothing was ever sent (FR-24), so this holder takes it over and submits.
      lock.ensureHeld();
      Payout reclaimed =
          write(Kind.RECLAIM, payout, token, () -> paydb.reclaim(payout.id(), token, worker));
      failpoint.reached(Point.RECLAIMED, reclaimed);
      return submit(reclaimed, key, lock, token);
    }
    if (record instanceof Found found) {
      return contentMismatch(payout, found.content(), "RECORD", lock, token)
          .orElseGet(() -> fromRecord(payout, found.submission(), lock, token));
    }
    return result(
        payout.id(), PayoutOutcome.DEFERRED, "proxy record: " + ((Unavailable) record).reason());
  }

  private PayoutResult fromSubmitted(Payout payout, HeldLock lock, FencingToken token) {
    Lookup record = proxy.find(payout.id());
    logRecovery(payout, token, record);
    if (record instanceof Found found) {
      return contentMismatch(payout, found.content(), "RECORD", lock, token)
          .orElseGet(() -> fromRecord(payout, found.submission(), lock, token));
    }
    if (record instanceof NotFound) {
      // Cannot happen by construction (markSubmitted follows the proxy's intent); conservative.
      lock.ensureHeld();
      write(
          Kind.RECORD_OUTCOME_MISSING,
          payout,
          token,
          () -> paydb.recordOutcomeMissing(payout.id(), token, worker));
      return result(payout.id(), PayoutOutcome.AMBIGUOUS, "submitted but no proxy record");
    }
    return result(
        payout.id(), PayoutOutcome.DEFERRED, "proxy record: " + ((Unavailable) record).reason());
  }

  private PayoutResult submit(Payout claimed, LockKey key, HeldLock lock, FencingToken token) {
    lock.ensureHeld();
    long nanos = System.nanoTime();
    Instant at = Instant.now();
    SubmitAnswer answer = proxy.submit(claimed, token, lock.signedGrant());
    effects.attempted(
        new Effect(
            Kind.SUBMIT,
            claimed.id(),
            claimed.accountId(),
            token.value(),
            submitOutcome(answer),
            nanos,
            at));
    if (answer instanceof Answered answered) {
      failpoint.reached(Point.PROXY_ANSWERED, claimed);
      return fromRecord(
          claimed,
          new Submission(
              claimed.id().toString(),
              token.value(),
              answered.outcome(),
              answered.railReference(),
              answered.declineCode()),
          lock,
          token);
    }
    if (answer instanceof StaleToken stale) {
      log.atWarn()
          .addKeyValue("event", "lock.fenced_out")
          .addKeyValue("guard", "rail-proxy")
          .addKeyValue("key", key)
          .addKeyValue("presentedToken", stale.presentedToken())
          .addKeyValue("storedFence", stale.highWater())
          .addKeyValue("owner", worker.id())
          .addKeyValue("payoutId", claimed.id())
          .log("rail proxy refused token {} for {}", token.value(), claimed.id());
      return result(
          claimed.id(), PayoutOutcome.FENCED_OUT, "proxy high-water " + stale.highWater());
    }
    if (answer instanceof Duplicate duplicate) {
      log.atWarn()
          .addKeyValue("event", "rail.submission.duplicate_refused")
          .addKeyValue("payoutId", claimed.id())
          .addKeyValue("token", token.value())
          .addKeyValue("existingToken", duplicate.existing().fencingToken())
          .addKeyValue("existingOutcome", duplicate.existing().outcome())
          .log("proxy already has a submission for {}; resolving from it", claimed.id());
      return contentMismatch(claimed, duplicate.content(), "DUPLICATE", lock, token)
          .orElseGet(() -> fromRecord(claimed, duplicate.existing(), lock, token));
    }
    if (answer instanceof OutcomeNotRecorded) {
      failpoint.reached(Point.PROXY_ANSWERED, claimed);
      return fromRecord(
          claimed,
          new Submission(claimed.id().toString(), token.value(), null, null, null),
          lock,
          token);
    }
    if (answer instanceof NothingSent nothing) {
      return result(claimed.id(), PayoutOutcome.DEFERRED, "proxy: " + nothing.code());
    }
    if (answer instanceof NoAnswer none) {
      // The intent may or may not be recorded: leave CLAIMED; the proxy's record decides later.
      return result(claimed.id(), PayoutOutcome.DEFERRED, "no answer from proxy: " + none.reason());
    }
    Refused refused = (Refused) answer;
    log.atError()
        .addKeyValue("event", "rail.submission.refused")
        .addKeyValue("payoutId", claimed.id())
        .addKeyValue("status", refused.status())
        .log("proxy refused the submission of {}: {}", claimed.id(), refused.body());
    return result(claimed.id(), PayoutOutcome.DEFERRED, "proxy refused " + refused.status());
  }

  /** Moves a CLAIMED or RAIL_SUBMITTED payout on from what the proxy recorded. */
  private PayoutResult fromRecord(
      Payout payout, Submission record, HeldLock lock, FencingToken token) {
    PayoutId id = payout.id();
    String outcome = record.outcome();
    if ("ACKED".equals(outcome)
        && !failpoint.stepsThroughSettlement()
        && settled(payout, record.railReference(), lock, token)) {
      return result(id, PayoutOutcome.POSTED, "");
    }
    // Not acknowledged, or the settlement rolled back: paydb holds the payout as read, so step.
    if (payout.state() == PayoutState.CLAIMED) {
      lock.ensureHeld();
      Payout claimed = payout;
      payout =
          write(Kind.MARK_SUBMITTED, claimed, token, () -> paydb.markSubmitted(id, token, worker));
      failpoint.reached(Point.SUBMITTED, payout);
    }
    if ("ACKED".equals(outcome)) {
      lock.ensureHeld();
      Payout acked =
          write(
              Kind.RECORD_ACKED,
              payout,
              token,
              () -> paydb.recordRailAcked(id, token, worker, record.railReference()));
      return post(acked, lock, token);
    }
    if ("REJECTED".equals(outcome)) {
      lock.ensureHeld();
      write(
          Kind.RECORD_DECLINED,
          payout,
          token,
          () -> paydb.recordRailDeclined(id, token, worker, record.declineCode()));
      return result(id, PayoutOutcome.FAILED_DECLINED, record.declineCode());
    }
    lock.ensureHeld();
    if ("TIMEOUT".equals(outcome)) {
      write(
          Kind.RECORD_TIMEOUT,
          payout,
          token,
          () -> paydb.recordRailTimeout(id, token, worker, "proxy recorded TIMEOUT"));
      return result(id, PayoutOutcome.AMBIGUOUS, "rail timeout");
    }
    write(
        Kind.RECORD_OUTCOME_MISSING,
        payout,
        token,
        () -> paydb.recordOutcomeMissing(id, token, worker));
    return result(id, PayoutOutcome.AMBIGUOUS, "no recorded outcome");
  }

  /**
   * ADR 0140: a proxy record found under this payout's id is acted on only when it carries this
   * payout's account, amount, currency, beneficiary and client reference. Otherwise somebody else
   * submitted this id, and our own payout may never have been sent: the payout goes to
   * RAIL_AMBIGUOUS (never retried, never posted, never RAIL_ACKED) for an operator, and the
   * reconciler reports it as SUBMISSION_CONTENT_MISMATCH. Empty when the contents agree.
   *
   * @param answer where the record came from: DUPLICATE (a 409 to our submit) or RECORD (recovery)
   */
  private Optional<PayoutResult> contentMismatch(
      Payout payout, SubmittedContent recorded, String answer, HeldLock lock, FencingToken token) {
    List<String> differences = SubmittedContent.of(payout).differences(recorded);
    if (differences.isEmpty()) {
      return Optional.empty();
    }
    log.atError()
        .addKeyValue("event", "payout.rail_content_mismatch")
        .addKeyValue("payoutId", payout.id())
        .addKeyValue("accountId", payout.accountId())
        .addKeyValue("state", payout.state())
        .addKeyValue("answer", answer)
        .addKeyValue("fields", differences)
        .addKeyValue("token", token.value())
        .addKeyValue("recordedAccountId", recorded == null ? null : recorded.accountId())
        .addKeyValue("recordedAmountMinor", recorded == null ? null : recorded.amountMinor())
        .addKeyValue("recordedCurrency", recorded == null ? null : recorded.currency())
        .addKeyValue("recordedBeneficiaryRef", recorded == null ? null : recorded.beneficiaryRef())
        .addKeyValue(
            "recordedClientReference", recorded == null ? null : recorded.clientReference())
        .log(
            "the proxy's submission under payout id {} is not this payout ({} differ);"
                + " left RAIL_AMBIGUOUS for an operator",
            payout.id(),
            differences);
    PayoutId id = payout.id();
    Payout current = payout;
    if (current.state() == PayoutState.CLAIMED) {
      // The table has no CLAIMED -> RAIL_AMBIGUOUS row: the proxy did accept a submission under
      // this id, whose outcome for this payout's content is unknown (ADR 0140).
      lock.ensureHeld();
      current =
          write(Kind.MARK_SUBMITTED, current, token, () -> paydb.markSubmitted(id, token, worker));
    }
    lock.ensureHeld();
    write(
        Kind.RECORD_OUTCOME_MISSING,
        current,
        token,
        () -> paydb.recordOutcomeMissing(id, token, worker));
    return Optional.of(
        result(
            id,
            PayoutOutcome.CONTENT_MISMATCH,
            answer.toLowerCase() + " differs in " + String.join(",", differences)));
  }

  /**
   * The rail acknowledged: submitted, acknowledged and posted in one paydb transaction (ADR 0219).
   * False when paydb refused the settlement for a reason of its own (a ledger check, an amount that
   * would overflow a balance): nothing changed, and the caller takes the three steps one at a time,
   * so that paydb records RAIL_ACKED, money gone, even when the posting cannot be made. A
   * fenced-out or refused settlement throws as any fenced write does.
   */
  private boolean settled(Payout payout, String railReference, HeldLock lock, FencingToken token) {
    lock.ensureHeld();
    try {
      write(
          Kind.SETTLE,
          payout,
          token,
          () -> paydb.settle(payout.id(), token, worker, railReference));
      return true;
    } catch (IllegalTransitionException e) {
      throw e;
    } catch (PaymentResourceException e) {
      log.atWarn()
          .addKeyValue("event", "payout.settlement_refused")
          .addKeyValue("payoutId", payout.id())
          .addKeyValue("accountId", payout.accountId())
          .addKeyValue("state", payout.state())
          .addKeyValue("token", token.value())
          .addKeyValue("code", e.code())
          .log(
              "paydb refused to settle {} in one transaction ({}); taking the steps one at a time",
              payout.id(),
              e.getMessage());
      return false;
    }
  }

  private PayoutResult post(Payout acked, HeldLock lock, FencingToken token) {
    failpoint.reached(Point.RAIL_ACKED, acked);
    lock.ensureHeld();
    write(Kind.POST, acked, token, () -> paydb.post(acked.id(), token, worker));
    return result(acked.id(), PayoutOutcome.POSTED, "");
  }

  private void logRecovery(Payout payout, FencingToken token, Lookup record) {
    log.atInfo()
        .addKeyValue("event", "payout.recovery")
        .addKeyValue("payoutId", payout.id())
        .addKeyValue("accountId", payout.accountId())
        .addKeyValue("token", token.value())
        .addKeyValue("state", payout.state())
        .addKeyValue("claimedBy", payout.claimedBy())
        .addKeyValue("proxyRecord", record.getClass().getSimpleName())
        .log("recovering {} from {} ({})", payout.id(), payout.state(), record);
  }

  /** One fenced paydb write, reported to the effect listener with how the guard answered. */
  private Payout write(Kind what, Payout payout, FencingToken token, Supplier<Payout> call) {
    return attempt(what, payout, token, call, written -> true);
  }

  /**
   * A fenced paydb call, reported to the effect listener with how the guard answered, unless it
   * returned a result that {@code changed} says changed nothing.
   */
  private <T> T attempt(
      Kind what, Payout payout, FencingToken token, Supplier<T> call, Predicate<T> changed) {
    long nanos = System.nanoTime();
    Instant at = Instant.now();
    String outcome = "OK";
    T result = null;
    try {
      result = call.get();
      return result;
    } catch (FencedOutException e) {
      outcome = "FENCED_OUT";
      throw e;
    } catch (IllegalTransitionException e) {
      outcome = "REFUSED_TRANSITION";
      throw e;
    } catch (RuntimeException e) {
      outcome = "ERROR";
      throw e;
    } finally {
      if (result == null || changed.test(result)) {
        effects.attempted(
            new Effect(what, payout.id(), payout.accountId(), token.value(), outcome, nanos, at));
      }
    }
  }

  private static String submitOutcome(SubmitAnswer answer) {
    if (answer instanceof Answered) {
      return "OK";
    }
    if (answer instanceof StaleToken) {
      return "FENCED_OUT";
    }
    if (answer instanceof Duplicate) {
      return "DUPLICATE";
    }
    if (answer instanceof OutcomeNotRecorded) {
      return "OUTCOME_NOT_RECORDED";
    }
    if (answer instanceof NothingSent) {
      return "NOTHING_SENT";
    }
    return answer instanceof NoAnswer ? "NO_ANSWER" : "REFUSED";
  }

  private static PayoutResult result(PayoutId id, PayoutOutcome outcome, String detail) {
    return new PayoutResult(id, outcome, detail == null ? "" : detail);
  }
}
