package dev.fencepost.lockserver.http;

import dev.fencepost.lock.InvalidLockKeyException;
import dev.fencepost.lock.LockException;
import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.SessionNotFoundException;
import dev.fencepost.lockserver.backend.BackendUnavailableException;
import dev.fencepost.lockserver.service.InvalidRequestException;
import java.net.URI;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Every error is {@code application/problem+json} with a stable {@code code} (docs/lock-server.md).
 * Clients and alerts branch on the code, never on the message text.
 */
@RestControllerAdvice
class ProblemResponses extends ResponseEntityExceptionHandler {

  private static final Logger log = LoggerFactory.getLogger(ProblemResponses.class);

  @ExceptionHandler(LockException.class)
  ResponseEntity<Object> lockException(LockException e) {
    // LOCK_HELD, LOCK_LOST and NOT_HOLDER are conflicts with the current holder.
    HttpStatus status = HttpStatus.CONFLICT;
    if (e instanceof InvalidLockKeyException) {
      status = HttpStatus.BAD_REQUEST;
    } else if (e instanceof SessionNotFoundException) {
      status = HttpStatus.NOT_FOUND;
    }
    ProblemDetail problem = problem(status, e.code(), e.getMessage());
    if (e instanceof LockLostException lost) {
      problem.setProperty("reason", lost.reason().name());
    }
    return respond(problem);
  }

  @ExceptionHandler({InvalidRequestException.class, IllegalArgumentException.class})
  ResponseEntity<Object> invalidRequest(RuntimeException e) {
    return respond(problem(HttpStatus.BAD_REQUEST, "INVALID_REQUEST", e.getMessage()));
  }

  @ExceptionHandler(BackendUnavailableException.class)
  ResponseEntity<Object> backendUnavailable(BackendUnavailableException e) {
    ProblemDetail problem =
        problem(HttpStatus.SERVICE_UNAVAILABLE, "BACKEND_UNAVAILABLE", e.getMessage());
    return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
        .header(HttpHeaders.RETRY_AFTER, "1")
        .body(problem);
  }

  /** A defect, not an input: logged with its stack so it gets fixed. */
  @ExceptionHandler(Exception.class)
  ResponseEntity<Object> unexpected(Exception e) {
    log.atError()
        .addKeyValue("event", "lock.http.unexpected_error")
        .setCause(e)
        .log("unexpected error");
    return respond(problem(HttpStatus.INTERNAL_SERVER_ERROR, "INTERNAL_ERROR", "unexpected error"));
  }

  /** Spring MVC's own rejections (unreadable body, wrong media type, ...) get a code too. */
  @Override
  protected ResponseEntity<Object> handleExceptionInternal(
      Exception ex, Object body, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
    ProblemDetail problem =
        body instanceof ProblemDetail detail
            ? detail
            : ProblemDetail.forStatusAndDetail(status, ex.getMessage());
    problem.setProperty("code", codeFor(status));
    if (status.value() == 400) {
      // Do not echo parser internals back to the caller.
      problem.setDetail("malformed request body or parameters");
    }
    return super.handleExceptionInternal(ex, problem, headers, status, request);
  }

  private static String codeFor(HttpStatusCode status) {
    return switch (status.value()) {
      case 400 -> "INVALID_REQUEST";
      case 404 -> "NOT_FOUND";
      case 405 -> "METHOD_NOT_ALLOWED";
      case 406 -> "NOT_ACCEPTABLE";
      case 413 -> "PAYLOAD_TOO_LARGE";
      case 415 -> "UNSUPPORTED_MEDIA_TYPE";
      default -> "HTTP_" + status.value();
    };
  }

  static ProblemDetail problem(HttpStatus status, String code, String detail) {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
    problem.setType(URI.create("https://fencepost.dev/problems/" + code.toLowerCase()));
    problem.setTitle(status.getReasonPhrase());
    problem.setProperty("code", code);
    return problem;
  }

  private static ResponseEntity<Object> respond(ProblemDetail problem) {
    return ResponseEntity.status(problem.getStatus()).body(problem);
  }
}
