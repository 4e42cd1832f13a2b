package dev.fencepost.reconciliation;

import dev.fencepost.lock.FencedOutException;
import dev.fencepost.lock.LockException;
import dev.fencepost.lock.client.LockTemplate;
import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.Actor;
import dev.fencepost.payment.IllegalTransitionException;
import dev.fencepost.payment.PaymentResource;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutId;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payment.SubmittedContent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves RAIL_AMBIGUOUS payouts by evidence (UC-05 steps 5 and 6, the payout state machine,
 * docs/payment-resource.md): a read-only rail lookup by the payout's client reference, through the
 * proxy. The rail shows a movement: RAIL_ACKED (a worker's recovery then posts it; ADR 0034 and
 * 0073). The rail still shows nothing once the settlement window since submission has passed:
 * FAILED. Anything else, including an unavailable lookup, leaves the payout ambiguous to age.
 * Elapsed time alone never resolves anything: the window only decides when "not found" becomes
 * evidence (FR-24).
 *
 * <p>Before any of that, the proxy's record under the payout's id must carry this payout's account,
 * amount, currency, beneficiary and client reference, and every movement the lookup shows this
 * payout's amount (ADR 0140). Otherwise somebody else used the id: the payout is left ambiguous for
 * an operator, never resolved, and the refusal is a {@link Discrepancy#SUBMISSION_CONTENT_MISMATCH}
 * finding of the same run.
 *
 * <p>Each transition runs under the account's lock {@code payout:{accountId}} and presents that
 * grant's token (ADR 0037, INV-07), after re-reading the payout inside the grant (FR-14). Nothing
 * here can submit to the rail: {@link ProxyReadClient} has no such method.
 */
public class AmbiguityResolver {

  private static final Logger log = LoggerFactory.getLogger(AmbiguityResolver.class);

  private final PaymentResource paydb;
  private final PaydbReads reads;
  private final ProxyReadClient proxy;
  private final LockTemplate locks;
  private final ReconciliationSettings settings;

  public AmbiguityResolver(
      PaymentResource paydb,
      PaydbReads reads,
      ProxyReadClient proxy,
      LockTemplate locks,
      ReconciliationSettings settings) {
    this.paydb = paydb;
    this.reads = reads;
    this.proxy = proxy;
    this.locks = locks;
    this.settings = settings;
  }

  private enum Result {
    SETTLED,
    ABSENT,
    AWAITING_EVIDENCE,
    LOOKUP_UNAVAILABLE,
    SKIPPED,
    CONTENT_MISMATCH
  }

  /** One pass over the ambiguous payouts, oldest first (at most 1,000 per run). */
  public ResolutionSummary resolveAll() {
    List<PaydbReads.Ambiguous> ambiguous = reads.ambiguous(1000);
    int settled = 0, absent = 0, awaiting = 0, unavailable = 0, skipped = 0;
    List<Finding> refused = new ArrayList<>();
    for (PaydbReads.Ambiguous a : ambiguous) {
      switch (resolve(a, refused)) {
        case SETTLED -> settled++;
        case ABSENT -> absent++;
        case AWAITING_EVIDENCE -> awaiting++;
        case LOOKUP_UNAVAILABLE -> unavailable++;
        case SKIPPED -> skipped++;
        case CONTENT_MISMATCH -> {}
      }
    }
    return new ResolutionSummary(
        ambiguous.size(), settled, absent, awaiting, unavailable, skipped, refused);
  }

  private Result resolve(PaydbReads.Ambiguous a, List<Finding> refused) {
    PayoutId id = PayoutId.parse(a.payoutId());
    Optional<Payout> seen = paydb.findPayout(id);
    if (seen.isEmpty() || seen.get().state() != PayoutState.RAIL_AMBIGUOUS) {
      return outcome(a, Result.SKIPPED, "no longer ambiguous", null);
    }
    String reference = seen.get().clientReference();
    Instant lookedUpAt = reads.now();
    Optional<Submission> record;
    try {
      record = proxy.submission(a.payoutId());
    } catch (SourceUnavailableException e) {
      return outcome(a, Result.LOOKUP_UNAVAILABLE, "proxy record: " + e.getMessage(), null);
    }
    RailLookup lookup = proxy.lookup(reference);
    if (lookup instanceof RailLookup.Unavailable u) {
      return outcome(a, Result.LOOKUP_UNAVAILABLE, u.reason(), null);
    }
    Optional<Finding> mismatch = contentMismatch(a, seen.get(), record, lookup);
    if (mismatch.isPresent()) {
      refused.add(mismatch.get());
      return outcome(a, Result.CONTENT_MISMATCH, mismatch.get().detail(), null);
    }
    if (lookup instanceof RailLookup.Found f) {
      String railReference = f.movements().get(0).railReference();
      return underLock(
          a,
          Result.SETTLED,
          "rail shows " + f.movements().size() + " movement(s), first " + railReference,
          token -> paydb.resolveSettled(id, token, actor(), railReference));
    }
    Duration since = Duration.between(a.since(), lookedUpAt);
    if (since.compareTo(settings.settlementWindow()) < 0) {
      return outcome(
          a,
          Result.AWAITING_EVIDENCE,
          "rail shows nothing yet, " + since.toSeconds() + " s after submission",
          null);
    }
    String evidence =
        "rail lookup at "
            + lookedUpAt
            + " found no movement for "
            + reference
            + ", "
            + since.toSeconds()
            + " s after submission (settlement window "
            + settings.settlementWindow().toSeconds()
            + " s)";
    return underLock(
        a, Result.ABSENT, evidence, token -> paydb.resolveAbsent(id, token, actor(), evidence));
  }

  /**
   * ADR 0140: the evidence is about this payout only if the proxy's record under its id carries its
   * content and the rail moved its amount. Reads only; empty when everything agrees (or there is no
   * proxy record, which the rules above already handle).
   */
  private static Optional<Finding> contentMismatch(
      PaydbReads.Ambiguous a, Payout payout, Optional<Submission> record, RailLookup lookup) {
    List<String> differences = new ArrayList<>();
    record.ifPresent(r -> differences.addAll(SubmittedContent.of(payout).differences(r.content())));
    if (lookup instanceof RailLookup.Found f
        && f.movements().stream().anyMatch(m -> m.amountMinor() != payout.amountMinor())) {
      differences.add("railMovementAmount");
    }
    if (differences.isEmpty()) {
      return Optional.empty();
    }
    String detail =
        "the proxy's submission or the rail's movement under payout id "
            + a.payoutId()
            + " is not this payout: differs in "
            + String.join(",", differences)
            + record
                .map(
                    r ->
                        " (proxy submission "
                            + r.id()
                            + ": account "
                            + r.accountId()
                            + ", amount "
                            + r.amountMinor()
                            + " "
                            + r.currency()
                            + ", beneficiary "
                            + r.beneficiaryRef()
                            + ", reference "
                            + r.clientReference()
                            + ", outcome "
                            + r.outcome()
                            + ")")
                .orElse("")
            + "; left RAIL_AMBIGUOUS for an operator";
    log.atError()
        .addKeyValue("event", "payout.rail_content_mismatch")
        .addKeyValue("payoutId", a.payoutId())
        .addKeyValue("accountId", a.accountId())
        .addKeyValue("state", payout.state())
        .addKeyValue("answer", "RESOLUTION")
        .addKeyValue("fields", differences)
        .log(detail);
    return Optional.of(
        new Finding(
            Discrepancy.SUBMISSION_CONTENT_MISMATCH,
            a.payoutId(),
            a.payoutId(),
            a.accountId(),
            detail));
  }

  private interface Transition {
    Payout apply(dev.fencepost.lock.FencingToken token);
  }

  private Result underLock(
      PaydbReads.Ambiguous a, Result intended, String evidence, Transition transition) {
    try {
      Optional<Result> done =
          locks.tryExecute(
              AccountId.of(a.accountId()).lockKey(),
              settings.lockWait(),
              lock -> {
                // FR-14: holding the lock does not mean there is still work to do.
                Optional<Payout> now = paydb.findPayout(PayoutId.parse(a.payoutId()));
                if (now.isEmpty() || now.get().state() != PayoutState.RAIL_AMBIGUOUS) {
                  return outcome(a, Result.SKIPPED, "moved on before the lock was held", null);
                }
                lock.ensureHeld();
                transition.apply(lock.token());
                return outcome(a, intended, evidence, lock.token().value());
              });
      return done.orElseGet(() -> outcome(a, Result.SKIPPED, "account lock busy", null));
    } catch (FencedOutException e) {
      return outcome(a, Result.SKIPPED, "fenced out: a newer grant exists", null);
    } catch (IllegalTransitionException e) {
      return outcome(a, Result.SKIPPED, "refused: " + e.getMessage(), null);
    } catch (LockException e) {
      return outcome(a, Result.SKIPPED, "lock unavailable: " + e.getMessage(), null);
    }
  }

  private Actor actor() {
    return Actor.reconciler(settings.reconcilerId());
  }

  private static Result outcome(PaydbReads.Ambiguous a, Result result, String detail, Long token) {
    var event =
        (result == Result.SKIPPED
                    || result == Result.LOOKUP_UNAVAILABLE
                    || result == Result.CONTENT_MISMATCH
                ? log.atWarn()
                : log.atInfo())
            .addKeyValue("event", "reconciliation.resolution")
            .addKeyValue("payoutId", a.payoutId())
            .addKeyValue("accountId", a.accountId())
            .addKeyValue("result", result.name())
            .addKeyValue("detail", detail);
    if (token != null) {
      event = event.addKeyValue("token", token);
    }
    event.log("ambiguous payout " + result.name().toLowerCase());
    return result;
  }
}
