package dev.fencepost.reconciliation;

import dev.fencepost.http.OutboundHttp;
import dev.fencepost.security.BearerTokenSource;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The rail proxy's read API (docs/rail.md, "Read endpoints"): submissions by window or by payout,
 * and the rail lookup passthrough. Deliberately has no submit method: nothing in this module can
 * send money (UC-05 rule "nothing may resubmit", FR-23). GETs only.
 */
public class ProxyReadClient implements SubmissionSource {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final int PAGE = 500;

  private final SourceReader proxy;

  /**
   * @param credentials the reconciler's bearer token per request (null: none is sent, and the proxy
   *     answers 401)
   */
  public ProxyReadClient(String baseUrl, Duration timeout, BearerTokenSource credentials) {
    this.proxy = new SourceReader("proxy", baseUrl, timeout, credentials);
  }

  /**
   * Every submission whose intent was recorded inside the window, following the proxy's keyset
   * pages, handed over one page at a time so that a window's submissions are never held whole.
   */
  @Override
  public void forEachPage(ReconciliationWindow window, Consumer<List<Submission>> each) {
    long afterId = 0;
    while (true) {
      String path =
          "/v1/submissions?createdFrom="
              + encode(window.from().toString())
              + "&createdTo="
              + encode(window.to().toString())
              + "&afterId="
              + afterId
              + "&limit="
              + PAGE;
      OutboundHttp.Answer response = proxy.get(path);
      if (response.statusCode() != 200) {
        throw new SourceUnavailableException(
            "proxy submissions page answered " + response.statusCode() + ": " + response.body());
      }
      JsonNode page = JSON.readTree(response.body());
      List<Submission> items = new ArrayList<>(PAGE);
      for (JsonNode item : page.path("items")) {
        items.add(submission(item));
      }
      each.accept(items);
      JsonNode next = page.path("nextAfterId");
      if (next.isMissingNode() || next.isNull()) {
        return;
      }
      afterId = next.asLong();
    }
  }

  /** The proxy's record for one payout; empty means it was never submitted. */
  @Override
  public Optional<Submission> submission(String payoutId) {
    OutboundHttp.Answer response = proxy.get("/v1/submissions/" + encode(payoutId));
    if (response.statusCode() == 404) {
      return Optional.empty();
    }
    if (response.statusCode() != 200) {
      throw new SourceUnavailableException(
          "proxy submission read answered " + response.statusCode() + ": " + response.body());
    }
    return Optional.of(submission(JSON.readTree(response.body())));
  }

  /**
   * The rail's lookup by client reference; never throws, an error is {@link
   * RailLookup.Unavailable}.
   */
  public RailLookup lookup(String clientReference) {
    OutboundHttp.Answer response;
    try {
      response = proxy.get("/v1/rail/payments?clientReference=" + encode(clientReference));
    } catch (SourceUnavailableException e) {
      return new RailLookup.Unavailable(e.getMessage());
    }
    if (response.statusCode() != 200) {
      return new RailLookup.Unavailable(
          "lookup answered " + response.statusCode() + ": " + abbreviate(response.body()));
    }
    try {
      List<RailMovement> movements = movements(JSON.readTree(response.body()).path("movements"));
      return movements.isEmpty() ? new RailLookup.NotFound() : new RailLookup.Found(movements);
    } catch (RuntimeException e) {
      return new RailLookup.Unavailable("unreadable lookup answer: " + e.getMessage());
    }
  }

  static List<RailMovement> movements(JsonNode array) {
    List<RailMovement> movements = new ArrayList<>();
    for (JsonNode m : array) {
      movements.add(
          new RailMovement(
              m.path("railReference").asString(),
              m.path("clientReference").asString(),
              m.path("amountMinor").asLong(),
              instant(m.path("receivedAt"))));
    }
    return movements;
  }

  private static Submission submission(JsonNode n) {
    JsonNode outcome = n.path("outcome");
    JsonNode rail = n.path("railReference");
    return new Submission(
        n.path("id").asLong(),
        n.path("payoutId").asString(),
        n.path("accountId").asString(),
        n.path("fencingToken").asLong(),
        n.path("clientReference").asString(),
        outcome.isNull() || outcome.isMissingNode() ? null : outcome.asString(),
        rail.isNull() || rail.isMissingNode() ? null : rail.asString(),
        instant(n.path("createdAt")),
        n.path("amountMinor").isNumber() ? n.path("amountMinor").asLong() : -1,
        text(n.path("currency")),
        text(n.path("beneficiaryRef")));
  }

  private static String text(JsonNode node) {
    return node.isNull() || node.isMissingNode() ? null : node.asString();
  }

  static Instant instant(JsonNode node) {
    if (node.isNull() || node.isMissingNode()) {
      return null;
    }
    return java.time.OffsetDateTime.parse(node.asString()).toInstant();
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  private static String abbreviate(String body) {
    return body == null || body.length() <= 200 ? body : body.substring(0, 200) + "...";
  }
}
