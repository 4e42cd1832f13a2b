package dev.fencepost.railstub;

import dev.fencepost.web.ProblemJsonExceptionHandler;
import dev.fencepost.web.Problems;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;

/**
 * The stub's own errors as problem+json with a stable {@code code}; bad input is a 4xx, never a
 * 5xx; full books are a 503 {@code RAIL_BOOK_FULL}. Everything else is mapped by web-support's
 * {@link ProblemJsonExceptionHandler}.
 */
@RestControllerAdvice
class StubProblemAdvice extends ProblemJsonExceptionHandler {

  private static final Logger log = LoggerFactory.getLogger(StubProblemAdvice.class);

  /** The books are full (fencepost.stub.max-movements): nothing moved, nothing counted. */
  @ExceptionHandler(RailBookFullException.class)
  ResponseEntity<Object> bookFull(RailBookFullException e) {
    log.atWarn()
        .addKeyValue("event", "rail.stub.book_full")
        .log("payment refused: {}", e.getMessage());
    return Problems.response(
        Problems.of(HttpStatus.SERVICE_UNAVAILABLE, "RAIL_BOOK_FULL", e.getMessage()));
  }

  @ExceptionHandler(InvalidPaymentException.class)
  ResponseEntity<Object> invalidPayment(InvalidPaymentException e, WebRequest request) {
    ProblemDetail problem = Problems.of(HttpStatus.BAD_REQUEST, "INVALID_PAYMENT", e.getMessage());
    problem.setTitle("Invalid payment");
    problem.setProperty("field", e.field());
    rejected(problem, request);
    return Problems.response(problem);
  }

  @ExceptionHandler(InvalidFaultPlanException.class)
  ResponseEntity<Object> invalidPlan(InvalidFaultPlanException e, WebRequest request) {
    ProblemDetail problem =
        Problems.of(HttpStatus.BAD_REQUEST, "INVALID_FAULT_PLAN", e.getMessage());
    problem.setTitle("Invalid fault plan");
    rejected(problem, request);
    return Problems.response(problem);
  }
}
