package dev.fencepost.payment.impl;

import dev.fencepost.lock.FencedOutException;
import dev.fencepost.lock.FencingToken;
import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.Actor;
import dev.fencepost.payment.FencingMode;
import dev.fencepost.payment.IllegalTransitionException;
import dev.fencepost.payment.PaymentResourceException;
import dev.fencepost.payment.PayoutId;
import dev.fencepost.payment.PayoutTransitions.Transition;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every structured event and every meter of the payment resource, so their names are stable and in
 * one place (NFR-08). Alerts filter on the {@code event} field, never on the message.
 *
 * <p>Meter tags are bounded enums only: guard, states, events, refusal causes, error codes. Payout,
 * account, token and owner appear in log fields, never in tags (NFR-09).
 */
public final class PaymentSignals {

  /** This guard's name in {@code lock.fenced_out}, {@code fencing.disabled} and meter tags. */
  public static final String GUARD = "paydb";

  private static final Logger log = LoggerFactory.getLogger(PaymentSignals.class);

  private final MeterRegistry registry;
  private final Counter fenceRejections;
  private final Counter guardRejections;

  public PaymentSignals(MeterRegistry registry) {
    this.registry = registry;
    this.fenceRejections =
        Counter.builder("fencepost.fence.rejections")
            .description("Writes refused because their token was below the stored fence (FR-16)")
            .tag("guard", GUARD)
            .register(registry);
    // The one reason this guard refuses a write: the rail proxy has more (ADR 0175).
    this.guardRejections =
        Counter.builder("fencepost.guard.rejections")
            .description("Requests a guard refused, by guard and reason (UC-03)")
            .tag("guard", GUARD)
            .tag("reason", "stale_token")
            .register(registry);
    // At zero from the start, as every counter an alert reads with increase(): the first failure
    // must be an increase, not the birth of a series (ADR 0175).
    for (String check : LEDGER_CHECKS) {
      registry.counter("fencepost.ledger.assertion.failures", "check", check);
    }
  }

  /** The INV-03 checks made inside a writing transaction ({@link #ledgerAssertionFailed}). */
  static final java.util.List<String> LEDGER_CHECKS =
      java.util.List.of("group_sum", "account_balance");

  /** Registers the FR-29 gauge and, when the fence is off, says so loudly (ADR 0035). */
  public void fencingMode(FencingMode mode) {
    int enabled = mode == FencingMode.ENFORCED ? 1 : 0;
    Gauge.builder("fencepost.fencing.enabled", () -> enabled)
        .description("1 when this guard enforces fencing tokens, 0 under the FR-29 experiment")
        .tag("guard", GUARD)
        .register(registry);
    if (mode != FencingMode.ENFORCED) {
      log.atWarn()
          .addKeyValue("event", "fencing.disabled")
          .addKeyValue("guard", GUARD)
          .addKeyValue("mode", mode.name())
          .log(
              "FENCING IS DISABLED at the payment resource: stale holders' writes will land."
                  + " Experiment only (FR-29); never in a real deployment");
    }
  }

  public void fencedOut(FencedOutException e, PayoutId payoutId) {
    fenceRejections.increment();
    guardRejections.increment();
    log.atWarn()
        .addKeyValue("event", "lock.fenced_out")
        .addKeyValue("guard", GUARD)
        .addKeyValue("key", e.key())
        .addKeyValue("presentedToken", e.presentedToken())
        .addKeyValue("storedFence", e.storedFence())
        .addKeyValue("owner", e.owner())
        .addKeyValue("payoutId", String.valueOf(payoutId))
        .log(
            "stale token fenced out at paydb: a newer grant exists for this account; the caller"
                + " must abort");
  }

  public void transition(
      Transition transition, PayoutId payoutId, AccountId accountId, FencingToken token, Actor by) {
    registry
        .counter(
            "fencepost.payout.transitions",
            "from",
            transition.from().name(),
            "to",
            transition.to().name(),
            "event",
            transition.event().name())
        .increment();
    log.atInfo()
        .addKeyValue("event", "payout.transition")
        .addKeyValue("payoutId", payoutId.toString())
        .addKeyValue("accountId", accountId.value())
        .addKeyValue("token", token.value())
        .addKeyValue("from", transition.from().name())
        .addKeyValue("to", transition.to().name())
        .addKeyValue("payoutEvent", transition.event().name())
        .addKeyValue("actor", by.id())
        .addKeyValue("role", by.role().name())
        .log("payout transition");
  }

  public void transitionRejected(IllegalTransitionException e, FencingToken token, Actor by) {
    registry
        .counter(
            "fencepost.payout.transitions.rejected",
            "from",
            e.from().name(),
            "event",
            e.event().name(),
            "refusal",
            e.refusal().name())
        .increment();
    log.atWarn()
        .addKeyValue("event", "payout.transition_rejected")
        .addKeyValue("payoutId", e.payoutId().toString())
        .addKeyValue("accountId", e.accountId().value())
        .addKeyValue("token", token.value())
        .addKeyValue("from", e.from().name())
        .addKeyValue("payoutEvent", e.event().name())
        .addKeyValue("actor", by.id())
        .addKeyValue("role", by.role().name())
        .addKeyValue("refusal", e.refusal().name())
        .addKeyValue("terminal", e.from().isTerminal())
        .log("payout transition refused; nothing changed");
  }

  /** Bad input, unknown ids, a busy account: refused before or without changing anything. */
  public void requestRejected(String operation, PaymentResourceException e) {
    registry
        .counter("fencepost.payment.requests.rejected", "operation", operation, "code", e.code())
        .increment();
    log.atWarn()
        .addKeyValue("event", "payment.request_rejected")
        .addKeyValue("operation", operation)
        .addKeyValue("code", e.code())
        .addKeyValue("reason", e.getMessage())
        .log("payment resource request refused; nothing changed");
  }

  /** INV-03 broke inside a writing transaction, which is being rolled back. */
  public void ledgerAssertionFailed(String check, String subject, String detail) {
    registry.counter("fencepost.ledger.assertion.failures", "check", check).increment();
    log.atError()
        .addKeyValue("event", "ledger.assertion_failed")
        .addKeyValue("check", check)
        .addKeyValue("subject", subject)
        .addKeyValue("detail", detail)
        .log("ledger assertion failed inside the writing transaction; rolled back");
  }

  public void accountCreated(AccountId account, String actor) {
    log.atInfo()
        .addKeyValue("event", "account.created")
        .addKeyValue("accountId", account.value())
        .addKeyValue("actor", actor)
        .log("fixture account created");
  }

  public void accountFunded(AccountId account, long amountMinor, String actor) {
    log.atInfo()
        .addKeyValue("event", "account.funded")
        .addKeyValue("accountId", account.value())
        .addKeyValue("amountMinor", amountMinor)
        .addKeyValue("actor", actor)
        .log("fixture account funded by a balanced ledger group");
  }

  public void payoutCreated(PayoutId payout, AccountId account, long amountMinor, String actor) {
    log.atInfo()
        .addKeyValue("event", "payout.created")
        .addKeyValue("payoutId", payout.toString())
        .addKeyValue("accountId", account.value())
        .addKeyValue("amountMinor", amountMinor)
        .addKeyValue("actor", actor)
        .log("fixture payout created in PENDING");
  }
}
