package dev.fencepost.reconciliation;

import dev.fencepost.security.BearerTokenSource;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * GETs from one source the comparison reads (the proxy's read API, the rail statement), with the
 * reconciler's bearer token on every request and no redirect followed. Every way of not getting an
 * answer is a {@link SourceUnavailableException} naming the source, so that a run fails rather than
 * report a partial comparison as complete (UC-07).
 */
final class SourceReader {

  private final String source;
  private final HttpClient http;
  private final String baseUrl;
  private final Duration timeout;
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
    this.timeout = timeout;
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(timeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  String baseUrl() {
    return baseUrl;
  }

  /** The answer to {@code GET path}, whatever its status. */
  HttpResponse<String> get(String path) {
    try {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(timeout).GET();
      if (credentials != null) {
        request.header("Authorization", "Bearer " + credentials.currentToken());
      }
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IllegalStateException e) {
      throw new SourceUnavailableException(
          "no credentials for the " + source + ": " + e.getMessage(), e);
    } catch (IOException e) {
      throw new SourceUnavailableException(source + " unreachable at " + baseUrl + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SourceUnavailableException("interrupted reading the " + source, e);
    }
  }
}
