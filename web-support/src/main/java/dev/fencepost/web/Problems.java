package dev.fencepost.web;

import java.net.URI;
import java.util.Locale;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/**
 * An error answer of a Fencepost HTTP API: an RFC 9457 problem ({@code application/problem+json})
 * with a stable {@code code} property. Clients and alerts branch on the code, never on the text.
 *
 * <pre>{@code
 * {"type":"https://fencepost.dev/problems/stale_token","title":"Conflict","status":409,
 *  "detail":"token 11 is below the account's high-water 12","code":"STALE_TOKEN"}
 * }</pre>
 */
public final class Problems {

  /** The name of the property that carries the stable code. */
  public static final String CODE = "code";

  /** Every problem's {@code type} is this plus its code in lower case. */
  public static final String TYPE_BASE = "https://fencepost.dev/problems/";

  private Problems() {}

  /** A problem with {@code code}, its type derived from the code and its title from the status. */
  public static ProblemDetail of(HttpStatusCode status, String code, String detail) {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
    problem.setProperty(CODE, requireCode(code));
    problem.setType(typeOf(code));
    HttpStatus known = HttpStatus.resolve(status.value());
    if (known != null) {
      problem.setTitle(known.getReasonPhrase());
    }
    return problem;
  }

  /** The answer carrying {@code problem}: its status, {@code application/problem+json}. */
  public static ResponseEntity<Object> response(ProblemDetail problem) {
    return ResponseEntity.status(problem.getStatus())
        .contentType(MediaType.APPLICATION_PROBLEM_JSON)
        .body(problem);
  }

  /** The code of {@code problem}, or null when it has none yet. */
  public static String codeOf(ProblemDetail problem) {
    Map<String, Object> properties = problem.getProperties();
    Object code = properties == null ? null : properties.get(CODE);
    return code == null ? null : code.toString();
  }

  /**
   * The code of an error that only has a status: a rejection by Spring MVC or by the HTTP server,
   * or an unexpected failure. 400 is {@code INVALID_REQUEST}, the code the applications also use
   * for input they refuse themselves.
   */
  public static String codeFor(HttpStatusCode status) {
    return switch (status.value()) {
      case 400 -> "INVALID_REQUEST";
      case 404 -> "NOT_FOUND";
      case 405 -> "METHOD_NOT_ALLOWED";
      case 406 -> "NOT_ACCEPTABLE";
      case 413 -> "PAYLOAD_TOO_LARGE";
      case 415 -> "UNSUPPORTED_MEDIA_TYPE";
      case 500 -> "INTERNAL_ERROR";
      default -> "HTTP_" + status.value();
    };
  }

  static URI typeOf(String code) {
    return URI.create(TYPE_BASE + code.toLowerCase(Locale.ROOT));
  }

  private static String requireCode(String code) {
    if (code == null || !code.matches("[A-Z][A-Z0-9_]*")) {
      throw new IllegalArgumentException(
          "a problem code is UPPER_SNAKE_CASE, got " + (code == null ? "null" : "'" + code + "'"));
    }
    return code;
  }
}
