package dev.fencepost.reconciliation;

import dev.fencepost.lock.FencedOutException;
import dev.fencepost.lock.LockException;
import dev.fencepost.lock.client.LockTemplate;
import dev.fencepost.payment.Actor;
import dev.fencepost.payment.IllegalTransitionException;
import dev.fencepost.payment.PaymentResource;
import dev.fencepost.payment.PaymentResourceException;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutId;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.web.FreeText;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two operator actions of the payout state machine (UC-05 step 6), each with an operator
 * identity and a non-blank reason, under the account's lock with its token (ADR 0037), audited by
 * payment-resource in the same transaction (FR-30) and logged as {@code
 * reconciliation.operator_action}:
 *
 * <ul>
 *   <li>{@link #cancel}: PENDING to ABANDONED;
 *   <li>{@link #abandon}: RAIL_AMBIGUOUS to ABANDONED, only once the resolution SLA has passed
 *       so a payout the reconciler may still resolve by evidence is not taken from it.
 * </ul>
 *
 * Every other transition is refused (INV-08, FR-22). Exposed at {@code POST
 * /actuator/payoutops/{payoutId}/{cancel|abandon}} (ADR 0074).
 */
public class OperatorActions {

  private static final Logger log = LoggerFactory.getLogger(OperatorActions.class);

  private final PaymentResource paydb;
  private final PaydbReads reads;
  private final LockTemplate locks;
  private final ReconciliationSettings settings;
  private final MeterRegistry meters;

  public OperatorActions(
      PaymentResource paydb,
      PaydbReads reads,
      LockTemplate locks,
      ReconciliationSettings settings,
      MeterRegistry meters) {
    this.paydb = paydb;
    this.reads = reads;
    this.locks = locks;
    this.settings = settings;
    this.meters = meters;
  }

  /** Cancels a PENDING payout (to ABANDONED). */
  public Payout cancel(String payoutId, String operator, String reason) {
    return act("cancel", payoutId, operator, reason);
  }

  /** Abandons a payout that has been RAIL_AMBIGUOUS for longer than the SLA (to ABANDONED). */
  public Payout abandon(String payoutId, String operator, String reason) {
    return act("abandon", payoutId, operator, reason);
  }

  private Payout act(String action, String payoutIdText, String operator, String reason) {
    try {
      if (operator == null || operator.isBlank()) {
        throw new OperatorActionRefusedException(
            "INVALID_REQUEST", "an operator identity is required");
      }
      if (reason == null || reason.isBlank()) {
        throw new OperatorActionRefusedException(
            "INVALID_REQUEST", "a non-blank reason is required");
      }
      // Checked before anything is read or locked: paydb cannot store NUL, and a line break in
      // the audit row or the event is not a reason (ADR 0166).
      if (FreeText.hasControlCharacter(operator) || FreeText.hasControlCharacter(reason)) {
        throw new OperatorActionRefusedException(
            "INVALID_REQUEST",
            "operator and reason must not contain control characters (NUL, tab, line breaks)");
      }
      Actor actor;
      PayoutId id;
      try {
        actor = Actor.operator(operator.trim());
        id = PayoutId.parse(payoutIdText);
      } catch (PaymentResourceException e) {
        throw new OperatorActionRefusedException("INVALID_REQUEST", e.getMessage());
      }
      Payout before =
          paydb
              .findPayout(id)
              .orElseThrow(
                  () ->
                      new OperatorActionRefusedException(
                          "PAYOUT_NOT_FOUND", "no payout " + payoutIdText));
      Optional<Payout> result =
          locks.tryExecute(
              before.accountId().lockKey(),
              settings.lockWait(),
              lock -> {
                Payout current = paydb.findPayout(id).orElseThrow(); // FR-14: re-read in the grant
                if ("abandon".equals(action) && current.state() == PayoutState.RAIL_AMBIGUOUS) {
                  requirePastSla(current);
                }
                lock.ensureHeld();
                return "cancel".equals(action)
                    ? paydb.cancel(id, lock.token(), actor, reason.trim())
                    : paydb.abandon(id, lock.token(), actor, reason.trim());
              });
      Payout done =
          result.orElseThrow(
              () ->
                  new OperatorActionRefusedException(
                      "ACCOUNT_BUSY", "the account's lock is held; try again"));
      record(action, payoutIdText, operator, reason, "accepted", null, done.tokenStamp());
      return done;
    } catch (OperatorActionRefusedException e) {
      record(action, payoutIdText, operator, reason, e.code(), e.getMessage(), null);
      throw e;
    } catch (IllegalTransitionException e) {
      record(action, payoutIdText, operator, reason, "ILLEGAL_TRANSITION", e.getMessage(), null);
      throw new OperatorActionRefusedException("ILLEGAL_TRANSITION", e.getMessage());
    } catch (FencedOutException e) {
      record(action, payoutIdText, operator, reason, "STALE_TOKEN", e.getMessage(), null);
      throw new OperatorActionRefusedException("STALE_TOKEN", e.getMessage());
    } catch (PaymentResourceException e) {
      record(action, payoutIdText, operator, reason, "INVALID_REQUEST", e.getMessage(), null);
      throw new OperatorActionRefusedException("INVALID_REQUEST", e.getMessage());
    } catch (LockException e) {
      record(action, payoutIdText, operator, reason, "LOCK_UNAVAILABLE", e.getMessage(), null);
      throw new OperatorActionRefusedException("LOCK_UNAVAILABLE", e.getMessage());
    }
  }

  private void requirePastSla(Payout payout) {
    Instant since = payout.submittedAt() != null ? payout.submittedAt() : payout.updatedAt();
    Duration age = Duration.between(since, reads.now());
    if (age.compareTo(settings.resolutionSla()) < 0) {
      throw new OperatorActionRefusedException(
          "WITHIN_SLA",
          "ambiguous for "
              + age.toMinutes()
              + " min; abandoning is allowed after the "
              + settings.resolutionSla().toMinutes()
              + " min resolution SLA (A-10), while the rail lookup may still resolve it");
    }
  }

  private void record(
      String action,
      String payoutId,
      String operator,
      String reason,
      String result,
      String detail,
      Long token) {
    meters
        .counter(
            "fencepost.reconciliation.operator.actions",
            "action",
            action,
            "result",
            "accepted".equals(result) ? "accepted" : "refused")
        .increment();
    var event =
        ("accepted".equals(result) ? log.atInfo() : log.atWarn())
            .addKeyValue("event", "reconciliation.operator_action")
            .addKeyValue("action", action)
            .addKeyValue("payoutId", payoutId)
            .addKeyValue("operator", operator)
            .addKeyValue("reason", reason)
            .addKeyValue("result", result);
    if (detail != null) {
      event = event.addKeyValue("detail", detail);
    }
    if (token != null) {
      event = event.addKeyValue("token", token);
    }
    event.log("operator " + action + " " + result);
  }
}
