package dev.fencepost.railproxy;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The submit path, in the order that makes it safe (FR-19): guard and intent in one committed
 * transaction, then exactly one rail call, then exactly one outcome.
 *
 * <p>When both refusals apply (a stale token for a payout that is already submitted) the answer is
 * STALE_TOKEN: the high-water guard runs first, because a superseded holder must learn that it is
 * fenced out and abort, not be handed a record it would act on (ADR 0040, UC-03).
 */
public final class SubmissionService {

  private static final Logger log = LoggerFactory.getLogger(SubmissionService.class);

  private final GrantVerifier grants;
  private final SubmissionStore store;
  private final TransactionTemplate transaction;
  private final RailClient rail;
  private final FencingSwitches switches;
  private final MeterRegistry meters;

  public SubmissionService(
      GrantVerifier grants,
      SubmissionStore store,
      TransactionTemplate transaction,
      RailClient rail,
      FencingSwitches switches,
      MeterRegistry meters) {
    this.grants = grants;
    this.store = store;
    this.transaction = transaction;
    this.rail = rail;
    this.switches = switches;
    this.meters = meters;
    // Registered up front so that the rules see zeroes, not missing series (ADR 0175).
    for (String reason : GUARD_REJECTION_REASONS) {
      guardRejection(reason);
    }
    // At zero from the start: Prometheus's increase() needs a sample before the first refusal, or
    // the first fenced-out write and the first duplicate would never raise an alert (a game day
    // found that).
    meters.counter("fencepost.fence.rejections", "guard", "rail-proxy");
    meters.counter("fencepost.rail.submission.duplicates", "guard", "rail-proxy");
  }

  /**
   * The reasons of {@code fencepost.guard.rejections{guard=rail-proxy}}: a stale token, a second
   * submission of a payout, and each grant refusal code, lower-cased. A closed set.
   */
  static final List<String> GUARD_REJECTION_REASONS =
      Stream.concat(
              Stream.of("stale_token", "duplicate_submission"),
              Arrays.stream(GrantRefusedException.Code.values())
                  .map(c -> c.name().toLowerCase(Locale.ROOT)))
          .toList();

  private Counter guardRejection(String reason) {
    return Counter.builder("fencepost.guard.rejections")
        .description("Requests a guard refused, by guard and reason (UC-03)")
        .tag("guard", "rail-proxy")
        .tag("reason", reason)
        .register(meters);
  }

  /** The submission's result: the outcome recorded for it. */
  public record Result(SubmissionRequest request, long submissionId, RailOutcome outcome) {}

  /**
   * Submits a payout to the rail at most once.
   *
   * @throws GrantRefusedException the grant does not prove the lock server issued this token for
   *     this account (403); recorded, nothing else touched
   * @throws GrantKeysUnavailableException the lock server's keys are unavailable (503); nothing
   *     recorded or sent
   * @throws StaleTokenException the token is below the account's high-water (409)
   * @throws DuplicateSubmissionException the payout was already submitted (409)
   * @throws OutcomeNotRecordedException the rail was called but proxydb refused the outcome (503)
   * @throws DataAccessException proxydb failed before the rail was called (503, nothing sent)
   * @throws RailCredentialsUnavailableException no token for the rail; nothing recorded or sent
   *     (503)
   */
  public Result submit(SubmissionRequest request) {
    // Before anything else: a token the lock server did not sign for this account must not reach
    // the high-water, which could never be lowered again by the runtime (ADR 0137).
    verifyGrant(request);
    // The rail credential first: an intent recorded without one would read as sent (ADR 0145).
    String credential = credential(request);
    IntentResult intent = recordIntent(request);
    if (intent instanceof IntentResult.Stale stale) {
      fencedOut(request, stale.highWater());
      throw new StaleTokenException(request, stale.highWater());
    }
    if (intent instanceof IntentResult.Duplicate duplicate) {
      duplicate(request, duplicate.existing());
      throw new DuplicateSubmissionException(duplicate.existing());
    }
    IntentResult.Accepted accepted = (IntentResult.Accepted) intent;
    log.atInfo()
        .addKeyValue("event", "rail.submission.intent_recorded")
        .addKeyValue("submissionId", accepted.submissionId())
        .addKeyValue("payoutId", request.payoutId())
        .addKeyValue("accountId", request.accountId())
        .addKeyValue("fencingToken", request.fencingToken())
        .addKeyValue("clientReference", request.clientReference())
        .addKeyValue("unguarded", accepted.unguarded())
        .log("submission intent committed; forwarding to the rail");
    if (accepted.unguarded()) {
      log.atError()
          .addKeyValue("event", "rail.submission.unguarded_duplicate")
          .addKeyValue("payoutId", request.payoutId())
          .addKeyValue("accountId", request.accountId())
          .addKeyValue("fencingToken", request.fencingToken())
          .log("uniqueness guard is off: forwarding a SECOND submission for this payout");
    }

    Timer.Sample sample = Timer.start(meters);
    // Exactly one call. Whatever it returns or throws, it is never repeated (ADR 0042, UC-05).
    RailOutcome outcome = rail.submit(request, credential);
    sample.stop(
        Timer.builder("fencepost.rail.submit.duration")
            .description("Time of the single rail call per submission")
            .tag("outcome", outcome.outcome().name())
            .register(meters));

    recordOutcome(request, accepted, outcome);
    meters.counter("fencepost.rail.submissions", "outcome", outcome.outcome().name()).increment();
    log.atInfo()
        .addKeyValue("event", "rail.submission.outcome_recorded")
        .addKeyValue("submissionId", accepted.submissionId())
        .addKeyValue("payoutId", request.payoutId())
        .addKeyValue("accountId", request.accountId())
        .addKeyValue("fencingToken", request.fencingToken())
        .addKeyValue("outcome", outcome.outcome().name())
        .addKeyValue("railReference", outcome.railReference())
        .addKeyValue("declineCode", outcome.declineCode())
        .addKeyValue("detail", outcome.detail())
        .log("rail outcome recorded");
    return new Result(request, accepted.submissionId(), outcome);
  }

  private void verifyGrant(SubmissionRequest request) {
    try {
      grants.verify(request);
    } catch (GrantRefusedException refused) {
      transaction.executeWithoutResult(
          status ->
              store.recordGrantRejection(
                  refused.code().name(), request, refused.keyId(), refused.getMessage()));
      countGrantRefusal(refused.code().name());
      guardRejection(refused.code().name().toLowerCase(Locale.ROOT)).increment();
      refusal(log.atWarn(), "rail.submission.grant_refused", request)
          .addKeyValue("code", refused.code().name())
          .addKeyValue("grantKeyId", refused.keyId())
          .addKeyValue("detail", refused.getMessage())
          .log(
              "submission refused: its grant is not the lock server's for this token; never forwarded");
      throw refused;
    } catch (GrantKeysUnavailableException unavailable) {
      countGrantRefusal("GRANT_KEYS_UNAVAILABLE");
      log.atError()
          .addKeyValue("event", "rail.grant_keys.unavailable")
          .addKeyValue("payoutId", request.payoutId())
          .setCause(unavailable)
          .log("the lock server's grant keys could not be fetched; nothing recorded or sent");
      throw unavailable;
    }
  }

  /** One refused grant, by code: a bounded set (the refusal codes and GRANT_KEYS_UNAVAILABLE). */
  private void countGrantRefusal(String code) {
    meters
        .counter("fencepost.rail.submission.grant_refusals", "guard", "rail-proxy", "code", code)
        .increment();
  }

  /**
   * {@code event} as a refusal at this guard: the lock, the token presented and the payout it was
   * for, so that every refusal names the same fields.
   */
  private static LoggingEventBuilder refusal(
      LoggingEventBuilder builder, String event, SubmissionRequest request) {
    return builder
        .addKeyValue("event", event)
        .addKeyValue("guard", "rail-proxy")
        .addKeyValue("key", request.lockKey())
        .addKeyValue("presentedToken", request.fencingToken())
        .addKeyValue("payoutId", request.payoutId())
        .addKeyValue("accountId", request.accountId())
        .addKeyValue("clientReference", request.clientReference());
  }

  private String credential(SubmissionRequest request) {
    try {
      return rail.credential();
    } catch (RailCredentialsUnavailableException e) {
      meters.counter("fencepost.rail.submission.no_credentials").increment();
      log.atError()
          .addKeyValue("event", "rail.submission.no_credentials")
          .addKeyValue("payoutId", request.payoutId())
          .addKeyValue("accountId", request.accountId())
          .addKeyValue("fencingToken", request.fencingToken())
          .addKeyValue("reason", e.getMessage())
          .log("no bearer token for the rail; nothing recorded, nothing sent");
      throw e;
    }
  }

  private IntentResult recordIntent(SubmissionRequest request) {
    try {
      return transaction.execute(status -> guardAndInsert(request));
    } catch (DuplicateKeyException e) {
      // The UNIQUE constraint refused the row and rolled the whole intent back (including the
      // high-water advance). The existing row is committed, or we could not have conflicted.
      return transaction.execute(
          status -> {
            SubmissionRecord existing =
                store
                    .findByPayoutId(request.payoutId())
                    .orElseThrow(() -> new IllegalStateException("conflict without a row", e));
            store.recordRejection(
                "DUPLICATE",
                request,
                store.highWater(request.accountId()).orElse(null),
                existing.id());
            return new IntentResult.Duplicate(existing);
          });
    }
  }

  private IntentResult guardAndInsert(SubmissionRequest request) {
    if (switches.highWaterEnabled()) {
      if (store.advanceHighWater(request.accountId(), request.fencingToken()).isEmpty()) {
        // Zero rows: stale. Nothing was changed; record the refusal in the same transaction.
        long highWater = store.highWater(request.accountId()).orElseThrow();
        store.recordRejection("FENCED", request, highWater, null);
        return new IntentResult.Stale(highWater);
      }
    } else {
      store.observeHighWater(request.accountId(), request.fencingToken());
    }
    if (switches.uniquenessEnabled()) {
      return new IntentResult.Accepted(store.insertIntent(request), false);
    }
    return store
        .insertIntentIfAbsent(request)
        .<IntentResult>map(id -> new IntentResult.Accepted(id, false))
        .orElseGet(() -> new IntentResult.Accepted(store.insertUnguarded(request), true));
  }

  private void recordOutcome(
      SubmissionRequest request, IntentResult.Accepted accepted, RailOutcome outcome) {
    int updated;
    try {
      updated = store.recordOutcome(accepted.submissionId(), accepted.unguarded(), outcome);
    } catch (DataAccessException e) {
      meters.counter("fencepost.rail.submission.outcome.unrecorded").increment();
      log.atError()
          .addKeyValue("event", "rail.submission.outcome_not_recorded")
          .addKeyValue("submissionId", accepted.submissionId())
          .addKeyValue("payoutId", request.payoutId())
          .addKeyValue("observedOutcome", outcome.outcome().name())
          .addKeyValue("railReference", outcome.railReference())
          .setCause(e)
          .log("rail answered but proxydb refused the outcome; the row stays unresolved");
      throw new OutcomeNotRecordedException(request, outcome, e);
    }
    if (updated != 1) {
      // Cannot happen through this class: only it resolves rows, once, by id. Loud if it does.
      meters.counter("fencepost.rail.submission.outcome.unrecorded").increment();
      log.atError()
          .addKeyValue("event", "rail.submission.outcome_conflict")
          .addKeyValue("submissionId", accepted.submissionId())
          .addKeyValue("payoutId", request.payoutId())
          .addKeyValue("observedOutcome", outcome.outcome().name())
          .log("submission was already resolved; the first outcome stands");
    }
  }

  private void fencedOut(SubmissionRequest request, long highWater) {
    meters.counter("fencepost.fence.rejections", "guard", "rail-proxy").increment();
    guardRejection("stale_token").increment();
    refusal(log.atWarn(), "lock.fenced_out", request)
        .addKeyValue("highWater", highWater)
        .log("stale fencing token refused by the rail proxy; never forwarded");
  }

  private void duplicate(SubmissionRequest request, SubmissionRecord existing) {
    meters.counter("fencepost.rail.submission.duplicates", "guard", "rail-proxy").increment();
    guardRejection("duplicate_submission").increment();
    log.atWarn()
        .addKeyValue("event", "rail.submission.duplicate")
        .addKeyValue("guard", "rail-proxy")
        .addKeyValue("payoutId", request.payoutId())
        .addKeyValue("accountId", request.accountId())
        .addKeyValue("presentedToken", request.fencingToken())
        .addKeyValue("existingSubmissionId", existing.id())
        .addKeyValue("existingToken", existing.fencingToken())
        .addKeyValue(
            "existingOutcome", existing.outcome() == null ? null : existing.outcome().name())
        .log("second submission for a payout refused; never forwarded");
  }
}
