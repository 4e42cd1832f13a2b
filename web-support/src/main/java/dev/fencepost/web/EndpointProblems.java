package dev.fencepost.web;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;

/**
 * A refusal by an application's own actuator endpoint ({@code /actuator/batchjobs}, {@code
 * /actuator/payoutops}) in the same shape as every other error ({@link Problems}): an {@code
 * application/problem+json} body with {@code type}, {@code title}, {@code status}, {@code detail}
 * and a stable {@code code}. An endpoint operation answers with a {@link WebEndpointResponse}
 * rather than by throwing, so the exception handler never sees its refusals; without this they went
 * out as the actuator's own JSON type.
 */
public final class EndpointProblems {

  private EndpointProblems() {}

  /** A problem with {@code code} and {@code detail}. */
  public static WebEndpointResponse<Object> of(HttpStatus status, String code, String detail) {
    return of(status, code, detail, Map.of());
  }

  /** A problem with {@code code}, {@code detail} and more {@code properties} (such as a name). */
  public static WebEndpointResponse<Object> of(
      HttpStatus status, String code, String detail, Map<String, ?> properties) {
    // A map, not a ProblemDetail: the actuator writes bodies with its own JSON mapper, which does
    // not flatten a ProblemDetail's properties.
    ProblemDetail problem = Problems.of(status, code, detail);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("type", problem.getType().toString());
    body.put("title", problem.getTitle());
    body.put("status", problem.getStatus());
    body.put("detail", problem.getDetail());
    body.put(Problems.CODE, code);
    properties.forEach(body::putIfAbsent);
    return new WebEndpointResponse<>(body, status.value(), MediaType.APPLICATION_PROBLEM_JSON);
  }
}
