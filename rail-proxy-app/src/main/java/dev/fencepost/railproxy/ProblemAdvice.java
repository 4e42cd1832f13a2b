package dev.fencepost.railproxy;

import dev.fencepost.web.ProblemJsonExceptionHandler;
import dev.fencepost.web.Problems;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;

/**
 * The proxy's own errors as problem+json with a stable {@code code} (docs/rail.md): bad input is a
 * 4xx that changed nothing, proxydb trouble is a 503. Spring MVC's rejections, unexpected
 * exceptions (a 500 would be a bug) and Tomcat's refusals are mapped the same way as in every
 * Fencepost application by web-support's {@link ProblemJsonExceptionHandler}; every refused input,
 * the proxy's own or the framework's, is also counted in {@code
 * fencepost.proxy.request.rejections{code}}.
 */
@RestControllerAdvice
class ProblemAdvice extends ProblemJsonExceptionHandler {

  private static final Logger log = LoggerFactory.getLogger(ProblemAdvice.class);

  private final MeterRegistry meters;

  ProblemAdvice(MeterRegistry meters) {
    this.meters = meters;
  }

  @ExceptionHandler(InvalidSubmissionException.class)
  ResponseEntity<Object> invalid(InvalidSubmissionException e, WebRequest request) {
    ProblemDetail problem = Problems.of(HttpStatus.BAD_REQUEST, "INVALID_REQUEST", e.getMessage());
    problem.setProperty("field", e.field());
    problem.setProperty("reason", e.reason());
    rejected(problem, request);
    return Problems.response(problem);
  }

  @ExceptionHandler(GrantRefusedException.class)
  ResponseEntity<Object> grantRefused(GrantRefusedException e) {
    ProblemDetail problem = Problems.of(HttpStatus.FORBIDDEN, e.code().name(), e.getMessage());
    problem.setProperty("payoutId", e.request().payoutId());
    problem.setProperty("presentedToken", e.request().fencingToken());
    return Problems.response(problem);
  }

  @ExceptionHandler(GrantKeysUnavailableException.class)
  ResponseEntity<Object> grantKeysUnavailable(GrantKeysUnavailableException e) {
    return unavailable(
        "GRANT_KEYS_UNAVAILABLE",
        "the lock server's grant keys are unavailable; nothing was recorded or sent");
  }

  @ExceptionHandler(StaleTokenException.class)
  ResponseEntity<Object> stale(StaleTokenException e) {
    ProblemDetail problem = Problems.of(HttpStatus.CONFLICT, "STALE_TOKEN", e.getMessage());
    problem.setProperty("payoutId", e.request().payoutId());
    problem.setProperty("presentedToken", e.request().fencingToken());
    problem.setProperty("highWater", e.highWater());
    return Problems.response(problem);
  }

  @ExceptionHandler(DuplicateSubmissionException.class)
  ResponseEntity<Object> duplicate(DuplicateSubmissionException e) {
    ProblemDetail problem =
        Problems.of(HttpStatus.CONFLICT, "DUPLICATE_SUBMISSION", e.getMessage());
    problem.setProperty("existing", e.existing());
    return Problems.response(problem);
  }

  @ExceptionHandler(SubmissionNotFoundException.class)
  ResponseEntity<Object> notFound(SubmissionNotFoundException e) {
    return Problems.response(
        Problems.of(HttpStatus.NOT_FOUND, "SUBMISSION_NOT_FOUND", e.getMessage()));
  }

  @ExceptionHandler(RailLookupUnavailableException.class)
  ResponseEntity<Object> lookupUnavailable(RailLookupUnavailableException e) {
    return unavailable("RAIL_LOOKUP_UNAVAILABLE", e.getMessage());
  }

  @ExceptionHandler(RailCredentialsUnavailableException.class)
  ResponseEntity<Object> railCredentialsUnavailable(RailCredentialsUnavailableException e) {
    return unavailable(
        "RAIL_CREDENTIALS_UNAVAILABLE",
        "the proxy has no credentials for the rail; nothing was recorded or sent");
  }

  @ExceptionHandler(OutcomeNotRecordedException.class)
  ResponseEntity<Object> outcomeNotRecorded(OutcomeNotRecordedException e) {
    ProblemDetail problem =
        Problems.of(
            HttpStatus.SERVICE_UNAVAILABLE,
            "OUTCOME_NOT_RECORDED",
            "the rail was called but the outcome could not be recorded; treat the payout as"
                + " ambiguous and never resubmit it");
    problem.setProperty("payoutId", e.request().payoutId());
    problem.setProperty("observedOutcome", e.observed().outcome());
    problem.setProperty("railReference", e.observed().railReference());
    return Problems.response(problem);
  }

  @ExceptionHandler(DataAccessException.class)
  ResponseEntity<Object> proxydbUnavailable(DataAccessException e) {
    log.atError()
        .addKeyValue("event", "proxydb.unavailable")
        .setCause(e)
        .log("proxydb failed before the rail was called; nothing was sent");
    return unavailable(
        "PROXYDB_UNAVAILABLE", "proxydb is unavailable; nothing was sent to the rail");
  }

  /** A 503 with {@code code}: something the proxy depends on failed, and nothing was sent. */
  private static ResponseEntity<Object> unavailable(String code, String detail) {
    return Problems.response(Problems.of(HttpStatus.SERVICE_UNAVAILABLE, code, detail));
  }

  /** Malformed JSON is a 400 of its own code. */
  @Override
  protected ResponseEntity<Object> handleHttpMessageNotReadable(
      HttpMessageNotReadableException ex,
      HttpHeaders headers,
      HttpStatusCode status,
      WebRequest request) {
    ProblemDetail problem =
        Problems.of(HttpStatus.BAD_REQUEST, "MALFORMED_JSON", "the request body is not valid JSON");
    return createResponseEntity(problem, headers, HttpStatus.BAD_REQUEST, request);
  }

  /** Logs the refusal (web-support) and counts it by code. */
  @Override
  protected void rejected(ProblemDetail problem, WebRequest request) {
    meters
        .counter("fencepost.proxy.request.rejections", "code", Problems.codeOf(problem))
        .increment();
    super.rejected(problem, request);
  }
}
