package dev.fencepost.reconciliation;

import dev.fencepost.security.BearerTokenSource;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import tools.jackson.databind.json.JsonMapper;

/**
 * The rail's statement: every movement the rail made, whatever our own records say. A real rail
 * delivers this as a settlement report; locally the rail stub's ground truth ({@code GET
 * /rail/admin/movements}, docs/rail.md) stands in for it (ADR 0071). Only the statement can show
 * money that left without any record of ours (a duplicate past a disabled guard, or a path around
 * the proxy), which no lookup by our own references can find. Read-only.
 */
public class RailStatement {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpClient http;
  private final String baseUrl;
  private final Duration timeout;
  private final BearerTokenSource credentials;

  /**
   * @param credentials the reconciler's bearer token per request (null: none is sent, and the stub
   *     answers 401)
   */
  public RailStatement(String baseUrl, Duration timeout, BearerTokenSource credentials) {
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

  /** Every movement on the statement; the caller narrows it to its window. */
  public List<RailMovement> movements() {
    try {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(URI.create(baseUrl + "/rail/admin/movements"))
              .timeout(timeout)
              .GET();
      if (credentials != null) {
        request.header("Authorization", "Bearer " + credentials.currentToken());
      }
      HttpResponse<String> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new SourceUnavailableException(
            "rail statement answered " + response.statusCode() + " at " + baseUrl);
      }
      return ProxyReadClient.movements(JSON.readTree(response.body()).path("movements"));
    } catch (IllegalStateException e) {
      throw new SourceUnavailableException("no credentials for the rail statement", e);
    } catch (IOException e) {
      throw new SourceUnavailableException("rail statement unreachable at " + baseUrl, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SourceUnavailableException("interrupted reading the rail statement", e);
    }
  }
}
