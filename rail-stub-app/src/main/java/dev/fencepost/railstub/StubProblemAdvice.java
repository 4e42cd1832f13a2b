package dev.fencepost.railstub;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/** Every error is problem+json with a stable {@code code}; bad input is a 4xx, never a 5xx. */
@RestControllerAdvice
class StubProblemAdvice extends ResponseEntityExceptionHandler {

  @ExceptionHandler(InvalidPaymentException.class)
  ProblemDetail invalidPayment(InvalidPaymentException e) {
    ProblemDetail problem =
        ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, e.getMessage());
    problem.setTitle("Invalid payment");
    problem.setProperty("code", "INVALID_PAYMENT");
    problem.setProperty("field", e.field());
    return problem;
  }

  @ExceptionHandler(InvalidFaultPlanException.class)
  ProblemDetail invalidPlan(InvalidFaultPlanException e) {
    ProblemDetail problem =
        ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, e.getMessage());
    problem.setTitle("Invalid fault plan");
    problem.setProperty("code", "INVALID_FAULT_PLAN");
    return problem;
  }

  /**
   * Adds the stable {@code code} to every problem Spring MVC itself produces (400, 404, 415...).
   */
  @Override
  protected ResponseEntity<Object> createResponseEntity(
      Object body, HttpHeaders headers, HttpStatusCode statusCode, WebRequest request) {
    if (body instanceof ProblemDetail problem
        && (problem.getProperties() == null || !problem.getProperties().containsKey("code"))) {
      problem.setProperty("code", codeFor(statusCode));
    }
    return super.createResponseEntity(body, headers, statusCode, request);
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
