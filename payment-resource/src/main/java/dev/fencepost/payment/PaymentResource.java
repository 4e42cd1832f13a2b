package dev.fencepost.payment;

import dev.fencepost.lock.FencedOutException;
import dev.fencepost.lock.FencingToken;
import dev.fencepost.payment.impl.AccountFence;
import dev.fencepost.payment.impl.Accounts;
import dev.fencepost.payment.impl.BalanceSlots;
import dev.fencepost.payment.impl.Ledger;
import dev.fencepost.payment.impl.PaymentSignals;
import dev.fencepost.payment.impl.PayoutEngine;
import dev.fencepost.payment.impl.Payouts;
import dev.fencepost.payment.impl.Transactions;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The payment resource: fenced payout transitions, the ledger posting, and the reads a job needs.
 * Thread-safe; build one per paydb DataSource and share it.
 *
 * <p><b>Every mutating method</b> takes the {@link FencingToken} of the caller's grant on {@code
 * payout:{accountId}} and the {@link Actor} doing it, both required; there is no overload without
 * them (INV-07, ADR 0037, FR-30). Each call is one transaction of its own that first advances the
 * account's fence with {@code fence <= token} (ADR 0036), then applies exactly one row of {@link
 * PayoutTransitions}, conditional on the payout's current state (re-read first for a claim or a
 * posting, checked by the update itself otherwise; ADR 0216), with its audit row; {@link #settle}
 * alone applies three rows in its one transaction (ADR 0219). It returns the payout as committed,
 * or throws and changes nothing:
 *
 * <ul>
 *   <li>{@link FencedOutException}: a newer grant exists for the account (FR-16). Abort, release
 *       nothing, never retry under this token.
 *   <li>{@link IllegalTransitionException}: the payout is not in a state (or the actor not in a
 *       role) where this event is allowed. After a fresh re-read that usually means another holder
 *       finished it; from a terminal state it is a defect signal (INV-08).
 *   <li>{@link InvalidPaymentRequestException}, {@link PayoutNotFoundException}: bad input.
 *   <li>{@link LedgerImbalanceException}: INV-03 would break; the posting was rolled back.
 * </ul>
 *
 * <p>Reads are snapshots for choosing work; the decision to act is always made again inside the
 * fenced transaction.
 */
public final class PaymentResource {

  private final PaymentResourceOptions options;
  private final PaymentSignals signals;
  private final PayoutEngine engine;
  private final Payouts payouts;
  private final Accounts accounts;
  private final LedgerAudit ledgerAudit;

  /** Production settings: fencing enforced, EUR. */
  public PaymentResource(DataSource dataSource, MeterRegistry meterRegistry) {
    this(dataSource, meterRegistry, PaymentResourceOptions.defaults());
  }

  /**
   * @throws IllegalStateException when paydb lacks its system accounts or one of their balance
   *     slots, was created in another currency than {@code options.currency()}, or runs its
   *     transactions at another isolation level than READ COMMITTED (the fence relies on it)
   */
  public PaymentResource(
      DataSource dataSource, MeterRegistry meterRegistry, PaymentResourceOptions options) {
    this.options = Checks.present(options, "options");
    JdbcClient jdbc = JdbcClient.create(Checks.present(dataSource, "a DataSource"));
    this.signals = new PaymentSignals(Checks.present(meterRegistry, "a MeterRegistry"));
    this.payouts = new Payouts(jdbc);
    this.accounts = new Accounts(jdbc);
    Transactions transactions = new Transactions(dataSource);
    transactions.requireReadCommitted();
    requireSystemAccounts(accounts, new BalanceSlots(jdbc), options.currency());
    this.engine =
        new PayoutEngine(
            transactions,
            new AccountFence(jdbc, options.fencingMode()),
            payouts,
            accounts,
            new Ledger(jdbc, signals),
            signals);
    this.ledgerAudit = new LedgerAudit(dataSource);
    signals.fencingMode(options.fencingMode());
  }

  public PaymentResourceOptions options() {
    return options;
  }

  // ---- worker (UC-01, UC-04) --------------------------------------------------------------------

  /**
   * PENDING -> CLAIMED when the account balance covers the amount, else PENDING -> FAILED with the
   * reason recorded and no rail call to make (A-09, UC-01 alternate b). Check the returned state.
   */
  public Payout claim(PayoutId payout, FencingToken token, Actor worker) {
    return apply(payout, PayoutEvent.CLAIM, token, worker, null);
  }

  /**
   * {@link #claim} for a payout the caller saw PENDING in a snapshot (a candidate), without reading
   * it first: the claim's transaction reads it anyway, under the account's fence. When it is
   * PENDING, the claim is made as {@link #claim} makes it. When another worker has moved it on
   * since the snapshot, nothing changes (the fence advance is rolled back too), no rejection is
   * signalled, and the payout comes back as found, to act on its state (FR-14, ADR 0218).
   *
   * @throws FencedOutException as {@link #claim}: a newer grant exists for the account
   * @throws IllegalTransitionException only when {@code worker} is not a worker
   * @throws PayoutNotFoundException when there is no such payout
   */
  public ClaimAttempt claimIfPending(PayoutId payout, FencingToken token, Actor worker) {
    return signalled(
        PayoutEvent.CLAIM.name(),
        () -> {
          Checks.present(payout, "a payout id");
          Checks.token(token);
          Checks.present(worker, "an actor");
          return engine.claimIfPending(payout, token, worker);
        });
  }

  /** CLAIMED -> CLAIMED: a later holder takes over after the claimer died (UC-04). */
  public Payout reclaim(PayoutId payout, FencingToken token, Actor worker) {
    return apply(payout, PayoutEvent.RECLAIM, token, worker, null);
  }

  /** CLAIMED -> RAIL_SUBMITTED: the rail proxy accepted the submission (its intent is recorded). */
  public Payout markSubmitted(PayoutId payout, FencingToken token, Actor worker) {
    return apply(payout, PayoutEvent.SUBMIT_ACCEPTED, token, worker, null);
  }

  /** RAIL_SUBMITTED -> RAIL_ACKED: money left; {@code railReference} is the rail's own id. */
  public Payout recordRailAcked(
      PayoutId payout, FencingToken token, Actor worker, String railReference) {
    return apply(payout, PayoutEvent.RAIL_ACKED, token, worker, railReference);
  }

  /** RAIL_SUBMITTED -> FAILED: a business decline; no ledger movement. */
  public Payout recordRailDeclined(
      PayoutId payout, FencingToken token, Actor worker, String declineCode) {
    return apply(payout, PayoutEvent.RAIL_DECLINED, token, worker, declineCode);
  }

  /** RAIL_SUBMITTED -> RAIL_AMBIGUOUS: timeout, connection failure or 5xx. Never resubmit. */
  public Payout recordRailTimeout(PayoutId payout, FencingToken token, Actor worker, String what) {
    return apply(payout, PayoutEvent.RAIL_TIMEOUT, token, worker, what);
  }

  /** RAIL_SUBMITTED -> RAIL_AMBIGUOUS: a later holder found no recorded outcome (UC-04). */
  public Payout recordOutcomeMissing(PayoutId payout, FencingToken token, Actor worker) {
    return apply(payout, PayoutEvent.OUTCOME_MISSING, token, worker, null);
  }

  /**
   * RAIL_ACKED -> POSTED: both ledger legs and both balances in the same fenced transaction, with
   * the INV-03 assertions inside it (FR-25). Safe to call again after a crash: until it commits the
   * payout stays RAIL_ACKED, and once it has, a second call is an illegal transition.
   */
  public Payout post(PayoutId payout, FencingToken token, Actor worker) {
    return apply(payout, PayoutEvent.POST, token, worker, null);
  }

  /**
   * The rail acknowledged the payout: CLAIMED -> RAIL_SUBMITTED -> RAIL_ACKED -> POSTED in one
   * fenced transaction (from RAIL_SUBMITTED, the last two), each transition with its audit row and
   * event, and the posting as {@link #post} makes it (ADR 0219). Until it commits the payout stays
   * as it was, so a caller that cannot settle can still take the steps one at a time: {@link
   * #markSubmitted}, {@link #recordRailAcked}, {@link #post}.
   *
   * @throws FencedOutException a newer grant exists for the account; nothing changed
   * @throws IllegalTransitionException the payout is neither CLAIMED nor RAIL_SUBMITTED, or {@code
   *     worker} is not a worker; refused as {@link #recordRailAcked} would refuse it
   * @throws LedgerImbalanceException INV-03 would break; nothing changed
   */
  public Payout settle(PayoutId payout, FencingToken token, Actor worker, String railReference) {
    return signalled(
        PayoutEvent.RAIL_ACKED.name(),
        () -> {
          Checks.present(payout, "a payout id");
          Checks.token(token);
          Checks.present(worker, "an actor");
          String reference = detail(PayoutEvent.RAIL_ACKED, railReference);
          return engine.settle(payout, token, worker, reference);
        });
  }

  // ---- reconciler (UC-05) -----------------------------------------------------------------------

  /** RAIL_AMBIGUOUS -> RAIL_ACKED: the rail lookup found the movement settled. */
  public Payout resolveSettled(
      PayoutId payout, FencingToken token, Actor reconciler, String railReference) {
    return apply(payout, PayoutEvent.LOOKUP_SETTLED, token, reconciler, railReference);
  }

  /** RAIL_AMBIGUOUS -> FAILED: the lookup definitively found nothing; {@code evidence} says how. */
  public Payout resolveAbsent(
      PayoutId payout, FencingToken token, Actor reconciler, String evidence) {
    return apply(payout, PayoutEvent.LOOKUP_ABSENT, token, reconciler, evidence);
  }

  // ---- operator (UC-05; the operator tool holds the account's lock, ADR 0037)
  // ------------------------

  /** PENDING -> ABANDONED, with a non-blank reason. */
  public Payout cancel(PayoutId payout, FencingToken token, Actor operator, String reason) {
    return apply(payout, PayoutEvent.OPERATOR_CANCEL, token, operator, reason);
  }

  /** RAIL_AMBIGUOUS -> ABANDONED past the resolution SLA, with a non-blank reason. */
  public Payout abandon(PayoutId payout, FencingToken token, Actor operator, String reason) {
    return apply(payout, PayoutEvent.OPERATOR_ABANDON, token, operator, reason);
  }

  // ---- reads ------------------------------------------------------------------------------------

  public Optional<Payout> findPayout(PayoutId payout) {
    return signalled("findPayout", () -> payouts.find(Checks.present(payout, "a payout id")));
  }

  /** The account's balance and fence, for observation only (see {@link AccountView}). */
  public AccountView account(AccountId account) {
    return signalled(
        "account",
        () ->
            accounts
                .find(Checks.present(account, "an account id"))
                .orElseThrow(() -> new AccountNotFoundException(account)));
  }

  /**
   * Work for the payout job: the oldest PENDING payout of each account that has no payout in
   * flight, oldest first, at most {@code limit} (1..1000), each with the number of PENDING payouts
   * its account had at the read. Accounts with something in flight are left out; recover those
   * through {@link #inFlight} first.
   */
  public List<PendingCandidate> pendingCandidates(int limit) {
    return signalled("pendingCandidates", () -> payouts.pendingCandidates(Checks.pageSize(limit)));
  }

  /**
   * The account's oldest PENDING payout, if the account has no payout in flight: the payout that
   * {@link #pendingCandidates} would offer for it. The payout job asks it under the account's grant
   * for the next payout that grant may carry (ADR 0236); like every candidate it is only a hint,
   * and the claim re-reads it (FR-14).
   */
  public Optional<Payout> nextPending(AccountId account) {
    return signalled(
        "nextPending", () -> payouts.nextPending(Checks.present(account, "an account id")));
  }

  /**
   * Claimed and not terminal (CLAIMED, RAIL_SUBMITTED, RAIL_ACKED, RAIL_AMBIGUOUS), stalest first.
   */
  public List<Payout> inFlight(int limit) {
    return signalled("inFlight", () -> payouts.inFlight(Checks.pageSize(limit)));
  }

  /** Payouts in one state, longest there first; e.g. RAIL_AMBIGUOUS for the ageing SLI. */
  public List<Payout> inState(PayoutState state, int limit) {
    return signalled(
        "inState", () -> payouts.inState(Checks.present(state, "a state"), Checks.pageSize(limit)));
  }

  /**
   * Accounts with more than one payout in flight. Should always be empty: the lock allows one at a
   * time per account. A detective control for the reconciler behind INV-01.
   */
  public List<AccountId> accountsWithConcurrentInFlight(int limit) {
    return signalled(
        "accountsWithConcurrentInFlight",
        () -> payouts.accountsWithConcurrentInFlight(Checks.pageSize(limit)));
  }

  /** The INV-03 checks over the whole ledger or one account. */
  public LedgerAudit ledgerAudit() {
    return ledgerAudit;
  }

  // ---- the one path every event takes -----------------------------------------------------------

  /**
   * Applies {@code event} as {@code actor} under {@code token}. Package-private: callers use the
   * named methods; tests use this to drive every (state, event, role) combination, including {@link
   * PayoutEvent#FUNDS_INSUFFICIENT}, which no named method requests directly.
   */
  Payout apply(PayoutId payout, PayoutEvent event, FencingToken token, Actor actor, String detail) {
    return signalled(
        event == null ? "apply" : event.name(),
        () -> {
          Checks.present(payout, "a payout id");
          Checks.present(event, "an event");
          Checks.token(token);
          Checks.present(actor, "an actor");
          return engine.apply(payout, event, token, actor, detail(event, detail));
        });
  }

  /**
   * The text each event records; required where the state machine asks for a reason or a reference.
   */
  private static String detail(PayoutEvent event, String detail) {
    return switch (event) {
      case CLAIM, RECLAIM, SUBMIT_ACCEPTED, POST -> null;
      case FUNDS_INSUFFICIENT -> "insufficient funds at claim time";
      case OUTCOME_MISSING ->
          "submitted with no recorded outcome; a crash after forwarding is indistinguishable from"
              + " a timeout (UC-04)";
      case RAIL_ACKED, LOOKUP_SETTLED -> Checks.text(detail, "a rail reference");
      case RAIL_DECLINED -> Checks.text(detail, "a decline code");
      case RAIL_TIMEOUT -> Checks.text(detail, "what happened on the rail call");
      case LOOKUP_ABSENT -> Checks.text(detail, "the lookup evidence");
      case OPERATOR_CANCEL, OPERATOR_ABANDON -> Checks.text(detail, "an operator reason");
    };
  }

  /**
   * Runs {@code call}, signalling a rejected request for every refusal except the two the engine
   * and the ledger signal themselves, where they happen and with more context.
   */
  private <T> T signalled(String operation, Supplier<T> call) {
    try {
      return call.get();
    } catch (IllegalTransitionException | LedgerImbalanceException e) {
      throw e;
    } catch (PaymentResourceException e) {
      signals.requestRejected(operation, e);
      throw e;
    }
  }

  private static void requireSystemAccounts(
      Accounts accounts, BalanceSlots slots, String currency) {
    Map<AccountId, String> found =
        accounts.systemAccounts().stream()
            .collect(Collectors.toMap(AccountView::id, AccountView::currency));
    for (AccountId system : List.of(AccountId.PAYOUT_CLEARING, AccountId.FUNDING_SOURCE)) {
      String stored = found.get(system);
      if (stored == null) {
        throw new IllegalStateException(
            "paydb has no system account "
                + system
                + ": apply db/changelog/paydb/db.changelog-master.yaml first");
      }
      if (!stored.equals(currency)) {
        throw new IllegalStateException(
            "paydb was created in "
                + stored
                + " (Liquibase property paydb.currency) but the resource is configured for "
                + currency);
      }
      // Found now rather than by the postings that land on a missing slot and roll back.
      int missing = slots.missing(system);
      if (missing > 0) {
        throw new IllegalStateException(
            "paydb lacks "
                + missing
                + " of the "
                + BalanceSlots.COUNT
                + " balance slots of "
                + system
                + " (ADR 0193): apply db/changelog/paydb/db.changelog-master.yaml first");
      }
    }
  }
}
