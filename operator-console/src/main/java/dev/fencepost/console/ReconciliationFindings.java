package dev.fencepost.console;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;

/**
 * The findings through reconciliation-job's {@code /actuator/findings} endpoint on its management
 * port, with the signed-in person's token ({@link ServiceClient}), like {@code payoutops} and
 * {@code batchjobs}.
 */
@Component
class ReconciliationFindings implements FindingsSource {

  /** The endpoint's own upper bound on {@code limit}. */
  static final int MAX_LIMIT = 500;

  private final ServiceClient services;
  private final ConsoleProperties properties;

  ReconciliationFindings(ServiceClient services, ConsoleProperties properties) {
    this.services = services;
    this.properties = properties;
  }

  @Override
  public Reply<Page> list(String status, String severity, long afterId) {
    StringBuilder url =
        new StringBuilder(base())
            .append("?limit=")
            .append(Math.min(properties.getPageSize(), MAX_LIMIT));
    if (afterId > 0) {
      url.append("&afterId=").append(afterId);
    }
    // Both come from closed sets checked by Inputs: nothing to encode.
    if (status != null) {
      url.append("&status=").append(status);
    }
    if (severity != null) {
      url.append("&severity=").append(severity);
    }
    return reply(
        services.get(url.toString()),
        body -> {
          List<Finding> items = new ArrayList<>();
          body.path("items").forEach(i -> items.add(finding(i)));
          JsonNode next = body.path("nextAfterId");
          return new Page(items, next.isNumber() ? next.asLong() : null);
        });
  }

  @Override
  public Reply<Detail> one(long id) {
    return reply(
        services.get(base() + "/" + id),
        body -> {
          List<Event> trail = new ArrayList<>();
          for (JsonNode e : body.path("trail")) {
            trail.add(
                new Event(
                    text(e, "fromStatus"),
                    text(e, "toStatus"),
                    text(e, "actorRole"),
                    text(e, "actor"),
                    text(e, "reason"),
                    instant(e.path("at"))));
          }
          return new Detail(finding(body), trail);
        });
  }

  @Override
  public Reply<Finding> act(long id, String action, String reason) {
    Map<String, Object> body = new LinkedHashMap<>();
    if (reason != null) {
      body.put("reason", reason);
    }
    return reply(
        services.post(base() + "/" + id + "/" + action, body), ReconciliationFindings::finding);
  }

  private String base() {
    return OverviewController.trim(properties.getReconciliationManagementUrl())
        + "/actuator/findings";
  }

  private static <T> Reply<T> reply(ServiceClient.Answer answer, Function<JsonNode, T> read) {
    if (answer.ok() && answer.body() != null) {
      return new Reply<>(read.apply(answer.body()), answer.status(), null);
    }
    return new Reply<>(null, answer.status(), answer.message());
  }

  private static Finding finding(JsonNode f) {
    return new Finding(
        f.path("id").asLong(),
        text(f, "discrepancy"),
        text(f, "severity"),
        text(f, "subject"),
        text(f, "payoutId"),
        text(f, "accountId"),
        text(f, "detail"),
        text(f, "status"),
        instant(f.path("firstFoundAt")),
        instant(f.path("lastFoundAt")),
        f.path("timesFound").asLong(),
        instant(f.path("statusChangedAt")));
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.path(field);
    return value.isNull() || value.isMissingNode() ? null : value.asString();
  }

  /** The service writes instants as ISO-8601 text (Jackson 3's default). */
  private static Instant instant(JsonNode value) {
    return value.isString() ? Instant.parse(value.asString()) : null;
  }
}
