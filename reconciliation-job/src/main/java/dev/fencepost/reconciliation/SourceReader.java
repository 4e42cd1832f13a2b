package dev.fencepost.reconciliation;

import dev.fencepost.http.OutboundHttp;
import dev.fencepost.security.BearerTokenSource;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import org.springframework.web.client.RestClient;

/**
 * GETs from one source the comparison reads (the proxy's read API, the rail statement), with the
 * reconciler's bearer token on every request and no redirect followed, over the platform's one
 * client stack ({@link OutboundHttp}, ADR 0197; no automatic retry). Each GET is bounded as a whole
 * (connecting, the answer's head and its body) by the reader's timeout. Every way of not getting an
 * answer is a {@link SourceUnavailableException} naming the source, so that a run fails rather than
 * report a partial comparison as complete (UC-07).
 */
final class SourceReader {

  /**
   * Every reader's connections, one pool per JVM: readers are made per run and per source, and a
   * pool of their own would outlive them.
   */
  private static final class Shared {
    static final OutboundHttp HTTP =
        OutboundHttp.builder()
            .connectTimeout(Duration.ofSeconds(10))
            .responseTimeout(Duration.ofSeconds(30))
            .build();
  }

  private final String source;
  private final RestClient http;
  private final String baseUrl;
  private final BearerTokenSource credentials;

  /**
   * @param source what the source is called in a failure ("proxy", "rail statement")
   * @param credentials the reconciler's bearer token per request (null: none is sent, and the
   *     source answers 401)
   */
  SourceReader(String source, String baseUrl, Duration timeout, BearerTokenSource credentials) {
    this.source = source;
    this.credentials = credentials;
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.http = RestClient.builder().requestFactory(Shared.HTTP.requestFactory(timeout)).build();
  }

  String baseUrl() {
    return baseUrl;
  }

  /** The answer to {@code GET path}, whatever its status. */
  OutboundHttp.Answer get(String path) {
    RestClient.RequestHeadersSpec<?> request = http.get().uri(URI.create(baseUrl + path));
    try {
      if (credentials != null) {
        request.header("Authorization", "Bearer " + credentials.currentToken());
      }
    } catch (IllegalStateException e) {
      throw new SourceUnavailableException(
          "no credentials for the " + source + ": " + e.getMessage(), e);
    }
    try {
      return OutboundHttp.exchange(request);
    } catch (IOException e) {
      throw new SourceUnavailableException(source + " unreachable at " + baseUrl + ": " + e, e);
    }
  }
}
