package dev.fencepost.reconciliation;

import dev.fencepost.security.BearerTokenSource;
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

  private final SourceReader rail;

  /**
   * @param credentials the reconciler's bearer token per request (null: none is sent, and the stub
   *     answers 401)
   */
  public RailStatement(String baseUrl, Duration timeout, BearerTokenSource credentials) {
    this.rail = new SourceReader("rail statement", baseUrl, timeout, credentials);
  }

  /** Every movement on the statement; the caller narrows it to its window. */
  public List<RailMovement> movements() {
    HttpResponse<String> response = rail.get("/rail/admin/movements");
    if (response.statusCode() != 200) {
      throw new SourceUnavailableException(
          "rail statement answered " + response.statusCode() + " at " + rail.baseUrl());
    }
    return ProxyReadClient.movements(JSON.readTree(response.body()).path("movements"));
  }
}
