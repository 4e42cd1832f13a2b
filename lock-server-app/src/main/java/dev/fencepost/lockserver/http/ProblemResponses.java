package dev.fencepost.lockserver.http;

import dev.fencepost.lock.InvalidLockKeyException;
import dev.fencepost.lock.LockException;
import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.SessionNotFoundException;
import dev.fencepost.lockserver.backend.BackendUnavailableException;
import dev.fencepost.lockserver.service.CapacityExceededException;
import dev.fencepost.lockserver.service.InvalidLockRequestException;
import dev.fencepost.lockserver.service.SessionNotOwnedException;
import dev.fencepost.web.ProblemJsonExceptionHandler;
import dev.fencepost.web.Problems;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The lock server's own errors as problem+json with a stable {@code code} (docs/lock-server.md):
 * lock-api's exceptions, invalid requests and an unavailable backend. Spring MVC's rejections,
 * unexpected exceptions and Tomcat's refusals are mapped the same way as in every Fencepost
 * application by web-support's {@link ProblemJsonExceptionHandler}.
 */
@RestControllerAdvice
class ProblemResponses extends ProblemJsonExceptionHandler {

  @ExceptionHandler(LockException.class)
  ResponseEntity<Object> lockException(LockException e) {
    // LOCK_HELD, LOCK_LOST and NOT_HOLDER are conflicts with the current holder.
    HttpStatus status = HttpStatus.CONFLICT;
    if (e instanceof InvalidLockKeyException) {
      status = HttpStatus.BAD_REQUEST;
    } else if (e instanceof SessionNotFoundException) {
      status = HttpStatus.NOT_FOUND;
    }
    ProblemDetail problem = Problems.of(status, e.code(), e.getMessage());
    if (e instanceof LockLostException lost) {
      problem.setProperty("reason", lost.reason().name());
    }
    return Problems.response(problem);
  }

  /** The session id is not a secret the caller may use: only its creator may (ADR 0133). */
  @ExceptionHandler(SessionNotOwnedException.class)
  ResponseEntity<Object> sessionNotOwned(SessionNotOwnedException e) {
    return Problems.response(
        Problems.of(HttpStatus.FORBIDDEN, "SESSION_NOT_OWNED", e.getMessage()));
  }

  @ExceptionHandler({InvalidLockRequestException.class, IllegalArgumentException.class})
  ResponseEntity<Object> invalidRequest(RuntimeException e) {
    return Problems.response(
        Problems.of(HttpStatus.BAD_REQUEST, "INVALID_REQUEST", e.getMessage()));
  }

  /** A capacity bound is reached (ADR 0165): try again after {@code Retry-After} seconds. */
  @ExceptionHandler(CapacityExceededException.class)
  ResponseEntity<Object> capacityExceeded(CapacityExceededException e) {
    ProblemDetail problem =
        Problems.of(HttpStatus.TOO_MANY_REQUESTS, e.limit().code(), e.getMessage());
    problem.setProperty("limit", e.limit().tag());
    long seconds = Math.max(1, (e.retryAfter().toMillis() + 999) / 1000);
    return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
        .header(HttpHeaders.RETRY_AFTER, Long.toString(seconds))
        .contentType(MediaType.APPLICATION_PROBLEM_JSON)
        .body(problem);
  }

  @ExceptionHandler(BackendUnavailableException.class)
  ResponseEntity<Object> backendUnavailable(BackendUnavailableException e) {
    ProblemDetail problem =
        Problems.of(HttpStatus.SERVICE_UNAVAILABLE, "BACKEND_UNAVAILABLE", e.getMessage());
    return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
        .header(HttpHeaders.RETRY_AFTER, "1")
        .contentType(MediaType.APPLICATION_PROBLEM_JSON)
        .body(problem);
  }
}
