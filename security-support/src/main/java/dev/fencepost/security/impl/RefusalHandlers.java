package dev.fencepost.security.impl;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.json.JacksonJsonHttpMessageConverter;
import org.springframework.http.server.ServletServerHttpResponse;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.oauth2.server.resource.web.BearerTokenAuthenticationEntryPoint;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.access.AccessDeniedHandler;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.security.web.firewall.RequestRejectedHandler;

/**
 * The two refusals of the security filter chain, answered like every other Fencepost error
 * (web-support's {@code Problems}: type {@code https://fencepost.dev/problems/<code>}, the status's
 * title, a stable {@code code}): 401 {@code UNAUTHENTICATED} with the bearer scheme's {@code
 * WWW-Authenticate} header, 403 {@code FORBIDDEN}. Each is an INFO event ({@code
 * security.unauthenticated}, {@code security.forbidden}) with the method, path and reason; the
 * token itself is never logged, and the answer's detail does not say which check failed.
 */
final class RefusalHandlers
    implements AuthenticationEntryPoint, AccessDeniedHandler, RequestRejectedHandler {

  private static final Logger log = LoggerFactory.getLogger(RefusalHandlers.class);

  private final BearerTokenAuthenticationEntryPoint bearer =
      new BearerTokenAuthenticationEntryPoint();
  private final JacksonJsonHttpMessageConverter json = new JacksonJsonHttpMessageConverter();

  @Override
  public void commence(
      HttpServletRequest request, HttpServletResponse response, AuthenticationException e)
      throws IOException {
    String reason =
        e instanceof OAuth2AuthenticationException oauth
            ? oauth.getError().getErrorCode()
            : "no_token";
    log.atInfo()
        .addKeyValue("event", "security.unauthenticated")
        .addKeyValue("method", request.getMethod())
        .addKeyValue("path", request.getRequestURI())
        .addKeyValue("reason", reason)
        .addKeyValue(
            "description",
            e instanceof OAuth2AuthenticationException oauth
                ? oauth.getError().getDescription()
                : null)
        .log("request refused: not authenticated");
    // Sets 401 and WWW-Authenticate: Bearer (with error="invalid_token" when one was presented).
    bearer.commence(request, response, e);
    write(
        response,
        problem(
            HttpStatus.UNAUTHORIZED,
            "UNAUTHENTICATED",
            "a valid bearer token for this service is required"));
  }

  @Override
  public void handle(
      HttpServletRequest request, HttpServletResponse response, AccessDeniedException e)
      throws IOException {
    log.atInfo()
        .addKeyValue("event", "security.forbidden")
        .addKeyValue("method", request.getMethod())
        .addKeyValue("path", request.getRequestURI())
        .addKeyValue(
            "principal",
            request.getUserPrincipal() == null ? null : request.getUserPrincipal().getName())
        .log("request refused: not allowed for this caller");
    response.setStatus(HttpStatus.FORBIDDEN.value());
    write(
        response,
        problem(HttpStatus.FORBIDDEN, "FORBIDDEN", "the caller's roles do not allow this"));
  }

  /**
   * web-support's {@code Problems.of}, restated: this module cannot depend on web-support, whose
   * tests use test-support, which depends on this module for its test issuer.
   * ResourceServerHttpTest checks the shape.
   */
  private static ProblemDetail problem(HttpStatus status, String code, String detail) {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
    problem.setType(URI.create("https://fencepost.dev/problems/" + code.toLowerCase(Locale.ROOT)));
    problem.setTitle(status.getReasonPhrase());
    problem.setProperty("code", code);
    return problem;
  }

  /**
   * A request Spring Security's firewall refuses before anything reads it (an encoded {@code ;},
   * {@code %}, a non-printable character in the path): 400 {@code INVALID_REQUEST}, logged as
   * web-support logs the 400s Spring MVC raises ({@code http.request.rejected}).
   */
  @Override
  public void handle(
      HttpServletRequest request, HttpServletResponse response, RequestRejectedException e)
      throws IOException {
    log.atInfo()
        .addKeyValue("event", "http.request.rejected")
        .addKeyValue("code", "INVALID_REQUEST")
        .addKeyValue("path", request.getRequestURI())
        .log("request refused by the firewall");
    response.setStatus(HttpStatus.BAD_REQUEST.value());
    write(
        response,
        problem(HttpStatus.BAD_REQUEST, "INVALID_REQUEST", "malformed request path or headers"));
  }

  private void write(HttpServletResponse response, ProblemDetail problem) throws IOException {
    if (response.isCommitted()) {
      return;
    }
    json.write(
        problem, MediaType.APPLICATION_PROBLEM_JSON, new ServletServerHttpResponse(response));
  }
}
