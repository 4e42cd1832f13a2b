package dev.fencepost.reconciliation;

import dev.fencepost.http.OutboundHttp;
import dev.fencepost.security.BearerTokenSource;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The rail's statement over HTTP (ADR 0176): {@code GET /rail/statements?bookedFrom=&bookedTo=
 * &page=&pageSize=}, one camt.053.001.08 page per request, with the reconciler's bearer token
 * (locally the rail stub, docs/rail.md). Read-only.
 */
public final class RailStatementSource implements StatementSource {

  private final SourceReader rail;
  private final int pageSize;

  /**
   * @param pageSize entries per statement page, 1..1000 ({@code
   *     fencepost.reconciliation.statement-page-size})
   * @param credentials the reconciler's bearer token per request (null: none is sent, and the rail
   *     answers 401)
   */
  public RailStatementSource(
      String baseUrl, Duration timeout, BearerTokenSource credentials, int pageSize) {
    if (pageSize < 1 || pageSize > 1000) {
      throw new IllegalArgumentException("statement page size must be 1..1000, got " + pageSize);
    }
    this.pageSize = pageSize;
    this.rail = new SourceReader("rail statement", baseUrl, timeout, credentials);
  }

  @Override
  public StatementPage read(ReconciliationWindow window, int page) {
    OutboundHttp.Answer response =
        rail.get(
            "/rail/statements?bookedFrom="
                + encode(window.from().toString())
                + "&bookedTo="
                + encode(window.to().toString())
                + "&page="
                + page
                + "&pageSize="
                + pageSize);
    if (response.statusCode() != 200) {
      throw new SourceUnavailableException(
          "rail statement answered " + response.statusCode() + " at " + rail.baseUrl());
    }
    Camt053.Document document = Camt053.read(response.body(), "rail statement page " + page);
    return new StatementPage(document.entries(), document.lastPage());
  }

  @Override
  public String name() {
    return "rail";
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}
