package dev.fencepost.payoutjob;

import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.PayoutId;
import java.time.Instant;

/**
 * Told of every side effect a worker attempts under a grant, with the token it presented and how
 * the guard answered. A seam for evidence (the experiments' history recorder writes these as {@code
 * effect} records) and for anyone who wants a worker-side audit trail; production binds {@link
 * #NONE}. It is called on the worker's thread after the attempt; it must not throw and must not
 * block for long, because the worker still holds its lock.
 */
@FunctionalInterface
public interface PayoutEffectListener {

  /**
   * The side effects, in the order a payout passes them; {@link #SETTLE} stands for {@link
   * #MARK_SUBMITTED}, {@link #RECORD_ACKED} and {@link #POST} when they are made together.
   */
  enum Kind {
    /** paydb PENDING to CLAIMED (or FAILED for insufficient funds). */
    CLAIM,
    /** paydb CLAIMED re-stamped by a recovering holder (nothing was ever sent). */
    RECLAIM,
    /** The submission to the rail proxy: the only effect that can move money. */
    SUBMIT,
    /** paydb CLAIMED to RAIL_SUBMITTED. */
    MARK_SUBMITTED,
    /** paydb RAIL_SUBMITTED to RAIL_ACKED. */
    RECORD_ACKED,
    /** paydb RAIL_SUBMITTED to FAILED. */
    RECORD_DECLINED,
    /** paydb RAIL_SUBMITTED to RAIL_AMBIGUOUS on a recorded timeout. */
    RECORD_TIMEOUT,
    /** paydb RAIL_SUBMITTED to RAIL_AMBIGUOUS with no recorded outcome. */
    RECORD_OUTCOME_MISSING,
    /** paydb RAIL_ACKED to POSTED with the ledger group. */
    POST,
    /**
     * paydb CLAIMED (or RAIL_SUBMITTED) to POSTED in one transaction: submitted, acknowledged and
     * posted with the ledger group (ADR 0219). The step a worker takes when the rail acknowledged.
     */
    SETTLE
  }

  /**
   * One attempt.
   *
   * @param outcome {@code OK} when the guard accepted it; {@code FENCED_OUT} when a guard refused
   *     the token (paydb fence or proxy high-water); {@code REFUSED_TRANSITION} when the state
   *     machine refused it; for {@link Kind#SUBMIT} otherwise the proxy's answer ({@code
   *     DUPLICATE}, {@code OUTCOME_NOT_RECORDED}, {@code NOTHING_SENT}, {@code NO_ANSWER}, {@code
   *     REFUSED})
   * @param nanos {@link System#nanoTime()} just before the attempt
   * @param at the wall clock just before the attempt
   */
  record Effect(
      Kind what,
      PayoutId payoutId,
      AccountId accountId,
      long token,
      String outcome,
      long nanos,
      Instant at) {}

  void attempted(Effect effect);

  /** Records nothing: the production binding. */
  PayoutEffectListener NONE = effect -> {};
}
