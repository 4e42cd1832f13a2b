package dev.fencepost.reconciliation;

import dev.fencepost.security.BearerTokenSource;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The rail's statement: every movement the rail made, whatever our own records say. A real rail
 * delivers this as a settlement report; locally the rail stub's ground truth ({@code GET
 * /rail/admin/movements}, docs/rail.md) stands in for it (ADR 0071). Only the statement can show
 * money that left without any record of ours (a duplicate past a disabled guard, or a path around
 * the proxy), which no lookup by our own references can find. Read-only, and read in pages: the
 * movements received in a run's window, then the whole history of the references the run looks at
 * (ADR 0168), never the whole statement at once.
 */
public class RailStatement {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final SourceReader rail;
  private final int pageSize;

  /** Client references per statement request: keeps the query string short. */
  static final int REFERENCES_PER_REQUEST = 50;

  /**
   * @param credentials the reconciler's bearer token per request (null: none is sent, and the stub
   *     answers 401)
   */
  public RailStatement(String baseUrl, Duration timeout, BearerTokenSource credentials) {
    this(baseUrl, timeout, credentials, 500);
  }

  /**
   * @param pageSize movements per statement page (fencepost.reconciliation.statement-page-size)
   */
  public RailStatement(
      String baseUrl, Duration timeout, BearerTokenSource credentials, int pageSize) {
    if (pageSize < 1 || pageSize > 1000) {
      throw new IllegalArgumentException("statement page size must be 1..1000, got " + pageSize);
    }
    this.pageSize = pageSize;
    this.rail = new SourceReader("rail statement", baseUrl, timeout, credentials);
  }

  /**
   * Every movement received inside {@code window}, handed to {@code each} a page at a time, so that
   * the statement is never held whole (ADR 0168).
   */
  public void forEachMovementIn(ReconciliationWindow window, Consumer<RailMovement> each) {
    String after = null;
    do {
      JsonNode page =
          page(
              "receivedFrom="
                  + encode(window.from().toString())
                  + "&receivedTo="
                  + encode(window.to().toString()),
              after);
      ProxyReadClient.movements(page.path("movements")).forEach(each);
      after = next(page);
    } while (after != null);
  }

  /**
   * Every movement, whenever received, of the given client references: the whole history of the
   * references a run looks at, read in pages of at most {@value #REFERENCES_PER_REQUEST}
   * references.
   */
  public List<RailMovement> movementsFor(Collection<String> clientReferences) {
    List<RailMovement> movements = new ArrayList<>();
    List<String> refs = new ArrayList<>(clientReferences);
    for (int i = 0; i < refs.size(); i += REFERENCES_PER_REQUEST) {
      StringBuilder filter = new StringBuilder();
      for (String ref : refs.subList(i, Math.min(refs.size(), i + REFERENCES_PER_REQUEST))) {
        filter.append(filter.isEmpty() ? "" : "&").append("clientReference=").append(encode(ref));
      }
      String after = null;
      do {
        JsonNode page = page(filter.toString(), after);
        movements.addAll(ProxyReadClient.movements(page.path("movements")));
        after = next(page);
      } while (after != null);
    }
    return movements;
  }

  private JsonNode page(String filter, String after) {
    String query = filter + "&limit=" + pageSize + (after == null ? "" : "&after=" + encode(after));
    HttpResponse<String> response = rail.get("/rail/admin/movements?" + query);
    if (response.statusCode() != 200) {
      throw new SourceUnavailableException(
          "rail statement answered " + response.statusCode() + " at " + rail.baseUrl());
    }
    return JSON.readTree(response.body());
  }

  private static String next(JsonNode page) {
    JsonNode next = page.path("next");
    return next.isNull() || next.isMissingNode() ? null : next.asString();
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}
