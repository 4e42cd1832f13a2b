package dev.fencepost.railproxy;

import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every error is {@code application/problem+json} with a stable {@code code} (docs/rail.md). Bad
 * input is a 4xx that changed nothing; proxydb trouble is a 503; a 500 would be a bug.
 */
@RestControllerAdvice
class ProblemAdvice extends ResponseEntityExceptionHandler {

  private static final Logger log = LoggerFactory.getLogger(ProblemAdvice.class);

  private final MeterRegistry meters;
  private final JsonMapper json;

  ProblemAdvice(MeterRegistry meters, JsonMapper json) {
    this.meters = meters;
    this.json = json;
  }

  @ExceptionHandler(InvalidRequestException.class)
  ResponseEntity<Object> invalid(InvalidRequestException e, HttpServletRequest request) {
    ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, "INVALID_REQUEST", e.getMessage());
    problem.setProperty("field", e.field());
    problem.setProperty("reason", e.reason());
    inputRejected(request, "INVALID_REQUEST", e.field());
    return respond(problem);
  }

  @ExceptionHandler(StaleTokenException.class)
  ResponseEntity<Object> stale(StaleTokenException e) {
    ProblemDetail problem = problem(HttpStatus.CONFLICT, "STALE_TOKEN", e.getMessage());
    problem.setProperty("payoutId", e.request().payoutId());
    problem.setProperty("presentedToken", e.request().fencingToken());
    problem.setProperty("highWater", e.highWater());
    return respond(problem);
  }

  @ExceptionHandler(DuplicateSubmissionException.class)
  ResponseEntity<Object> duplicate(DuplicateSubmissionException e) {
    ProblemDetail problem = problem(HttpStatus.CONFLICT, "DUPLICATE_SUBMISSION", e.getMessage());
    problem.setProperty("existing", e.existing());
    return respond(problem);
  }

  @ExceptionHandler(SubmissionNotFoundException.class)
  ResponseEntity<Object> notFound(SubmissionNotFoundException e) {
    return respond(problem(HttpStatus.NOT_FOUND, "SUBMISSION_NOT_FOUND", e.getMessage()));
  }

  @ExceptionHandler(RailLookupUnavailableException.class)
  ResponseEntity<Object> lookupUnavailable(RailLookupUnavailableException e) {
    return respond(
        problem(HttpStatus.SERVICE_UNAVAILABLE, "RAIL_LOOKUP_UNAVAILABLE", e.getMessage()));
  }

  @ExceptionHandler(OutcomeNotRecordedException.class)
  ResponseEntity<Object> outcomeNotRecorded(OutcomeNotRecordedException e) {
    ProblemDetail problem =
        problem(
            HttpStatus.SERVICE_UNAVAILABLE,
            "OUTCOME_NOT_RECORDED",
            "the rail was called but the outcome could not be recorded; treat the payout as"
                + " ambiguous and never resubmit it");
    problem.setProperty("payoutId", e.request().payoutId());
    problem.setProperty("observedOutcome", e.observed().outcome());
    problem.setProperty("railReference", e.observed().railReference());
    return respond(problem);
  }

  @ExceptionHandler(DataAccessException.class)
  ResponseEntity<Object> proxydbUnavailable(DataAccessException e) {
    log.atError()
        .addKeyValue("event", "proxydb.unavailable")
        .setCause(e)
        .log("proxydb failed before the rail was called; nothing was sent");
    return respond(
        problem(
            HttpStatus.SERVICE_UNAVAILABLE,
            "PROXYDB_UNAVAILABLE",
            "proxydb is unavailable; nothing was sent to the rail"));
  }

  @ExceptionHandler(Exception.class)
  ResponseEntity<Object> unexpected(Exception e) {
    log.atError().addKeyValue("event", "http.request.failed").setCause(e).log("unexpected error");
    return respond(problem(HttpStatus.INTERNAL_SERVER_ERROR, "INTERNAL_ERROR", "unexpected error"));
  }

  /** Malformed JSON is a 400; a body cut off by the size limit is a 413. */
  @Override
  protected ResponseEntity<Object> handleHttpMessageNotReadable(
      HttpMessageNotReadableException ex,
      HttpHeaders headers,
      HttpStatusCode status,
      WebRequest request) {
    for (Throwable t = ex; t != null; t = t.getCause()) {
      if (t instanceof PayloadTooLargeException tooLarge) {
        ProblemDetail problem =
            problem(HttpStatus.CONTENT_TOO_LARGE, "PAYLOAD_TOO_LARGE", tooLarge.getMessage());
        return createResponseEntity(problem, headers, HttpStatus.CONTENT_TOO_LARGE, request);
      }
    }
    ProblemDetail problem =
        problem(HttpStatus.BAD_REQUEST, "MALFORMED_JSON", "the request body is not valid JSON");
    return createResponseEntity(problem, headers, HttpStatus.BAD_REQUEST, request);
  }

  /** Adds the stable {@code code} to problems Spring MVC produces itself (404, 405, 415...). */
  @Override
  protected ResponseEntity<Object> createResponseEntity(
      Object body, HttpHeaders headers, HttpStatusCode statusCode, WebRequest request) {
    if (body instanceof ProblemDetail problem) {
      if (problem.getProperties() == null || !problem.getProperties().containsKey("code")) {
        problem.setProperty("code", codeFor(statusCode));
      }
      if (statusCode.is4xxClientError()) {
        String path = request.getDescription(false);
        inputRejected(path, String.valueOf(problem.getProperties().get("code")), null);
      }
    }
    HttpHeaders withType = new HttpHeaders();
    withType.addAll(headers);
    withType.setContentType(MediaType.APPLICATION_PROBLEM_JSON);
    return super.createResponseEntity(body, withType, statusCode, request);
  }

  /** Used by {@link RequestSizeLimitFilter}, which answers before Spring MVC is involved. */
  void writePayloadTooLarge(
      HttpServletRequest request, HttpServletResponse response, long limitBytes)
      throws IOException {
    inputRejected(request, "PAYLOAD_TOO_LARGE", null);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("type", "about:blank");
    body.put("title", "Content Too Large");
    body.put("status", 413);
    body.put("detail", "request body exceeds " + limitBytes + " bytes");
    body.put("instance", request.getRequestURI());
    body.put("code", "PAYLOAD_TOO_LARGE");
    response.setStatus(413);
    response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
    // The unread body is not worth draining; make sure the connection is not reused.
    response.setHeader(HttpHeaders.CONNECTION, "close");
    json.writeValue(response.getOutputStream(), body);
  }

  private static ProblemDetail problem(HttpStatus status, String code, String detail) {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
    problem.setProperty("code", code);
    return problem;
  }

  private static ResponseEntity<Object> respond(ProblemDetail problem) {
    return ResponseEntity.status(problem.getStatus())
        .contentType(MediaType.APPLICATION_PROBLEM_JSON)
        .body(problem);
  }

  private void inputRejected(HttpServletRequest request, String code, String field) {
    inputRejected(request.getRequestURI(), code, field);
  }

  private void inputRejected(String path, String code, String field) {
    meters.counter("fencepost.proxy.request.rejections", "code", code).increment();
    log.atInfo()
        .addKeyValue("event", "http.request.rejected")
        .addKeyValue("code", code)
        .addKeyValue("field", field)
        .addKeyValue("path", path)
        .log("request refused as bad input; nothing written, nothing sent");
  }

  private static String codeFor(HttpStatusCode status) {
    return switch (status.value()) {
      case 400 -> "BAD_REQUEST";
      case 404 -> "NOT_FOUND";
      case 405 -> "METHOD_NOT_ALLOWED";
      case 406 -> "NOT_ACCEPTABLE";
      case 413 -> "PAYLOAD_TOO_LARGE";
      case 415 -> "UNSUPPORTED_MEDIA_TYPE";
      default -> "HTTP_" + status.value();
    };
  }
}
