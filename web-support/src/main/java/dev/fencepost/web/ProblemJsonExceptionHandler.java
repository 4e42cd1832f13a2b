package dev.fencepost.web;

import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.ServletWebRequest;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Every error an application's controllers raise becomes {@code application/problem+json} with a
 * stable {@code code} ({@link Problems}). This class maps what is the same in every application:
 *
 * <ul>
 *   <li>Spring MVC's own rejections: an unreadable body, a missing or mistyped parameter (400
 *       {@code INVALID_REQUEST}; the parser's message is not echoed back), no such path (404 {@code
 *       NOT_FOUND}), a wrong method (405 {@code METHOD_NOT_ALLOWED}), a wrong media type (415
 *       {@code UNSUPPORTED_MEDIA_TYPE}), and so on ({@link Problems#codeFor}). Each is logged as an
 *       INFO {@code http.request.rejected} event with its code and path.
 *   <li>Free text with a control character ({@link InvalidTextException}, from {@link FreeText}):
 *       400 {@code INVALID_REQUEST} with the {@code field}.
 *   <li>Any other exception: a defect, not an input. 500 {@code INTERNAL_ERROR} without details,
 *       and an ERROR {@code http.request.failed} event with the stack, so it gets fixed.
 * </ul>
 *
 * <p>An application maps its own domain exceptions in a subclass annotated
 * {@code @RestControllerAdvice}, with {@code @ExceptionHandler} methods that answer with {@link
 * Problems#of} and {@link Problems#response}; a handler for a specific exception wins over the
 * catch-all here. When an application declares no subclass, {@link ProblemJsonAutoConfiguration}
 * registers this class as it is. Requests Tomcat refuses before routing are answered the same way
 * by {@link ProblemJsonErrorReportValve}.
 */
@RestControllerAdvice
public class ProblemJsonExceptionHandler extends ResponseEntityExceptionHandler {

  private static final Logger log = LoggerFactory.getLogger(ProblemJsonExceptionHandler.class);

  /** Free text with a control character ({@link FreeText}): the same 400 in every application. */
  @ExceptionHandler(InvalidTextException.class)
  public ResponseEntity<Object> invalidText(InvalidTextException e, WebRequest request) {
    ProblemDetail problem = Problems.of(HttpStatus.BAD_REQUEST, "INVALID_REQUEST", e.getMessage());
    problem.setProperty("field", e.field());
    rejected(problem, request);
    return Problems.response(problem);
  }

  /** A defect, not an input: logged with its stack so it gets fixed. */
  @ExceptionHandler(Exception.class)
  public ResponseEntity<Object> unexpected(Exception e, WebRequest request) {
    log.atError()
        .addKeyValue("event", "http.request.failed")
        .addKeyValue("path", path(request))
        .setCause(e)
        .log("unexpected error");
    return Problems.response(
        Problems.of(HttpStatus.INTERNAL_SERVER_ERROR, "INTERNAL_ERROR", "unexpected error"));
  }

  /** Gives Spring MVC's own rejections a code, and keeps parser internals out of a 400's detail. */
  @Override
  protected ResponseEntity<Object> handleExceptionInternal(
      Exception ex, Object body, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
    ProblemDetail problem =
        body instanceof ProblemDetail detail
            ? detail
            : ProblemDetail.forStatusAndDetail(status, ex.getMessage());
    if (Problems.codeOf(problem) == null) {
      String code = Problems.codeFor(status);
      problem.setProperty(Problems.CODE, code);
      problem.setType(Problems.typeOf(code));
      if (status.value() == 400) {
        problem.setDetail("malformed request body or parameters");
      }
    }
    return super.handleExceptionInternal(ex, problem, headers, status, request);
  }

  /** Every answer of this handler is problem+json, and every client error is logged. */
  @Override
  protected ResponseEntity<Object> createResponseEntity(
      Object body, HttpHeaders headers, HttpStatusCode statusCode, WebRequest request) {
    if (body instanceof ProblemDetail problem && statusCode.is4xxClientError()) {
      rejected(problem, request);
    }
    HttpHeaders withType = new HttpHeaders();
    withType.addAll(headers);
    withType.setContentType(MediaType.APPLICATION_PROBLEM_JSON);
    return super.createResponseEntity(body, withType, statusCode, request);
  }

  /**
   * Records a request refused as a client error: an INFO {@code http.request.rejected} event with
   * the problem's code, the path, and the {@code field} the problem names, if any. Called for
   * Spring MVC's rejections; a subclass calls it for the input it refuses itself, and may override
   * it to count rejections too (calling this one).
   */
  protected void rejected(ProblemDetail problem, WebRequest request) {
    Map<String, Object> properties = problem.getProperties();
    log.atInfo()
        .addKeyValue("event", "http.request.rejected")
        .addKeyValue("code", Problems.codeOf(problem))
        .addKeyValue("field", properties == null ? null : properties.get("field"))
        .addKeyValue("path", path(request))
        .log("request refused as a client error");
  }

  private static String path(WebRequest request) {
    if (request instanceof ServletWebRequest servlet) {
      HttpServletRequest http = servlet.getRequest();
      return http.getRequestURI();
    }
    return request.getDescription(false);
  }
}
