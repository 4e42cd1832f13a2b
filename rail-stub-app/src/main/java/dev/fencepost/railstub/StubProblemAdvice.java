package dev.fencepost.railstub;

import dev.fencepost.web.ProblemJsonExceptionHandler;
import dev.fencepost.web.Problems;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;

/**
 * The stub's own errors as problem+json with a stable {@code code}; bad input is a 4xx, never a
 * 5xx. Everything else is mapped by web-support's {@link ProblemJsonExceptionHandler}.
 */
@RestControllerAdvice
class StubProblemAdvice extends ProblemJsonExceptionHandler {

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
