package dev.fencepost.console;

import dev.fencepost.http.OutboundHttp;
import java.io.IOException;
import java.net.URI;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Calls the platform's services as the signed-in person: every request carries that person's access
 * token ({@link OperatorToken}) and nothing else, so each service decides by the person's roles and
 * records the person. Answers are never thrown: a refusal comes back with the service's
 * problem+json {@code code} and {@code detail} for the page to show; an unreachable service is
 * status 0. Requests go over the platform's one client stack ({@link OutboundHttp}, ADR 0197): no
 * automatic retry (an operator's action is sent once), no redirect followed, each exchange bounded
 * as a whole by the read timeout.
 */
@Component
public class ServiceClient implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ServiceClient.class);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final OutboundHttp http;
  private final RestClient client;
  private final OperatorToken token;

  public ServiceClient(ConsoleProperties properties, OperatorToken token) {
    this.token = token;
    this.http =
        OutboundHttp.builder()
            .connectTimeout(properties.getConnectTimeout())
            .responseTimeout(properties.getReadTimeout())
            .build();
    this.client = RestClient.builder().requestFactory(http.requestFactory()).build();
  }

  @Override
  public void close() {
    http.close();
  }

  /** A service's answer. */
  public record Answer(int status, JsonNode body, String code, String detail) {

    public boolean ok() {
      return status >= 200 && status < 300;
    }

    public boolean reachable() {
      return status != 0;
    }

    /** What to tell the person about a refusal: the service's own words and code. */
    public String message() {
      if (!reachable()) {
        return "the service did not answer: " + detail;
      }
      return (detail == null ? "refused" : detail) + (code == null ? "" : " (" + code + ")");
    }
  }

  /** GET {@code url} with the person's token. */
  public Answer get(String url) {
    return send(client.get().uri(URI.create(url)), url, true);
  }

  /** GET {@code url} without a token: health endpoints, Prometheus. */
  public Answer getAnonymous(String url) {
    return send(client.get().uri(URI.create(url)), url, false);
  }

  /** POST {@code body} as JSON to {@code url} with the person's token. */
  public Answer post(String url, Map<String, ?> body) {
    return send(
        client
            .post()
            .uri(URI.create(url))
            .contentType(MediaType.APPLICATION_JSON)
            .body(JSON.writeValueAsString(body)),
        url,
        true);
  }

  private Answer send(RestClient.RequestHeadersSpec<?> request, String url, boolean asPerson) {
    request.header("Accept", "application/json");
    if (asPerson) {
      // Outside the try: an expired sign-in is the caller's to handle (sign in again).
      request.header("Authorization", "Bearer " + token.current());
    }
    try {
      OutboundHttp.Answer response = OutboundHttp.exchange(request);
      JsonNode body = parse(response.body());
      String code = body != null && body.hasNonNull("code") ? body.get("code").asString() : null;
      String detail =
          body != null && body.hasNonNull("detail")
              ? body.get("detail").asString()
              : body != null && body.hasNonNull("title") ? body.get("title").asString() : null;
      if (response.statusCode() >= 400) {
        log.atInfo()
            .addKeyValue("event", "console.service.refused")
            .addKeyValue("url", stripQuery(url))
            .addKeyValue("status", response.statusCode())
            .addKeyValue("code", code)
            .log("service refused");
      }
      return new Answer(response.statusCode(), body, code, detail);
    } catch (IOException e) {
      log.atWarn()
          .addKeyValue("event", "console.service.unreachable")
          .addKeyValue("url", stripQuery(url))
          .addKeyValue("error", e.getClass().getSimpleName())
          .log("service unreachable");
      return new Answer(
          0, null, "UNREACHABLE", e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }

  private static JsonNode parse(String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      return JSON.readTree(text);
    } catch (JacksonException e) {
      return null;
    }
  }

  private static String stripQuery(String url) {
    int q = url.indexOf('?');
    return q < 0 ? url : url.substring(0, q);
  }
}
