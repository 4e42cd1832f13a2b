package dev.fencepost.reconciliation;

import dev.fencepost.security.CurrentCaller;
import dev.fencepost.web.EndpointProblems;
import dev.fencepost.web.FreeText;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.http.HttpStatus;
import org.springframework.lang.Nullable;

/**
 * Where operators own the reconciliation's findings (ADR 0179), on the management port with an
 * OPERATOR's bearer token like {@code payoutops} (ADR 0147):
 *
 * <ul>
 *   <li>{@code GET /actuator/findings[?status=][&severity=][&afterId=][&limit=]}: issues by id
 *       (status OPEN, ACKNOWLEDGED, RESOLVED or REOPENED; severity PAGE or TICKET; limit 1..500,
 *       default 100), with {@code nextAfterId} for the next page;
 *   <li>{@code GET /actuator/findings/{id}}: one issue and its audit trail;
 *   <li>{@code POST /actuator/findings/{id}/acknowledge|resolve} with {@code {"reason": "..."}}
 *       (required to resolve): the operator recorded is the token's subject; a body {@code
 *       operator} naming someone else is refused.
 * </ul>
 *
 * Refusals are problem+json with a stable {@code code}: 400 INVALID_REQUEST, 404 FINDING_NOT_FOUND,
 * 409 ILLEGAL_TRANSITION; nothing changes. Every action is logged ({@code
 * reconciliation.issue.action}) and counted ({@code
 * fencepost.reconciliation.issue.actions{action,result}}).
 */
@Endpoint(id = "findings", defaultAccess = Access.UNRESTRICTED)
public class FindingsEndpoint {

  private static final Logger log = LoggerFactory.getLogger(FindingsEndpoint.class);

  static final int MAX_LIMIT = 500;
  static final int MAX_REASON = 1000;

  private final FindingStore store;
  private final MeterRegistry meters;

  public FindingsEndpoint(FindingStore store, MeterRegistry meters) {
    this.store = store;
    this.meters = meters;
  }

  @ReadOperation
  public WebEndpointResponse<Object> list(
      @Nullable String status,
      @Nullable String severity,
      @Nullable String afterId,
      @Nullable String limit) {
    try {
      if (status != null && !FindingStore.STATUSES.contains(status)) {
        throw invalid("status must be one of " + FindingStore.STATUSES.stream().sorted().toList());
      }
      if (severity != null && !"PAGE".equals(severity) && !"TICKET".equals(severity)) {
        throw invalid("severity must be PAGE or TICKET");
      }
      long after = afterId == null ? 0 : number("afterId", afterId, 0, Long.MAX_VALUE);
      int max = limit == null ? 100 : (int) number("limit", limit, 1, MAX_LIMIT);
      List<FindingStore.Issue> issues = store.list(status, severity, after, max);
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("items", issues.stream().map(FindingsEndpoint::describe).toList());
      body.put("nextAfterId", issues.size() < max ? null : issues.get(issues.size() - 1).id());
      return new WebEndpointResponse<>(body, 200);
    } catch (FindingActionRefusedException e) {
      return problem(e);
    }
  }

  @ReadOperation
  public WebEndpointResponse<Object> one(@Selector String id) {
    try {
      long issueId = id(id);
      FindingStore.Issue issue =
          store
              .find(issueId)
              .orElseThrow(
                  () ->
                      new FindingActionRefusedException(
                          "FINDING_NOT_FOUND", "no reconciliation finding " + issueId));
      Map<String, Object> body = describe(issue);
      body.put("trail", store.trail(issueId));
      return new WebEndpointResponse<>(body, 200);
    } catch (FindingActionRefusedException e) {
      return problem(e);
    }
  }

  @WriteOperation
  public WebEndpointResponse<Object> act(
      @Selector String id,
      @Selector String action,
      @Nullable String operator,
      @Nullable String reason) {
    String caller = null;
    try {
      caller = CurrentCaller.requireName();
      if (operator != null && !operator.isBlank() && !operator.trim().equals(caller)) {
        throw invalid(
            "operator, when given, must be the authenticated caller; it is taken from the token");
      }
      FindingStore.Action what =
          switch (action) {
            case "acknowledge" -> FindingStore.Action.ACKNOWLEDGE;
            case "resolve" -> FindingStore.Action.RESOLVE;
            default -> throw invalid("action must be acknowledge or resolve, got " + action);
          };
      long issueId = id(id);
      if (reason != null
          && (FreeText.hasControlCharacter(reason) || reason.length() > MAX_REASON)) {
        throw invalid(
            "reason must have at most " + MAX_REASON + " characters and no control characters");
      }
      if (what == FindingStore.Action.RESOLVE && (reason == null || reason.isBlank())) {
        throw invalid("a non-blank reason is required to resolve a finding");
      }
      FindingStore.Issue done =
          store.transition(issueId, what, caller, reason == null ? null : reason.trim());
      record(action, id, caller, reason, "accepted", done.status());
      return new WebEndpointResponse<>(describe(done), 200);
    } catch (FindingActionRefusedException e) {
      record(action, id, caller, reason, e.code(), e.getMessage());
      return problem(e);
    }
  }

  private void record(
      String action, String id, String operator, String reason, String result, String detail) {
    boolean accepted = "accepted".equals(result);
    meters
        .counter(
            "fencepost.reconciliation.issue.actions",
            "action",
            "acknowledge".equals(action) || "resolve".equals(action) ? action : "other",
            "result",
            accepted ? "accepted" : "refused")
        .increment();
    (accepted ? log.atInfo() : log.atWarn())
        .addKeyValue("event", "reconciliation.issue.action")
        .addKeyValue("action", FreeText.printable(action))
        .addKeyValue("issueId", FreeText.printable(id))
        .addKeyValue("operator", operator)
        .addKeyValue("reason", reason == null ? null : FreeText.printable(reason))
        .addKeyValue("result", result)
        .addKeyValue("detail", detail)
        .log("finding " + action + " " + result);
  }

  private static Map<String, Object> describe(FindingStore.Issue i) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("id", i.id());
    body.put("discrepancy", i.discrepancy());
    body.put("severity", i.severity());
    body.put("subject", i.subject());
    body.put("payoutId", i.payoutId());
    body.put("accountId", i.accountId());
    body.put("detail", i.detail());
    body.put("status", i.status());
    body.put("firstFoundAt", i.firstFoundAt());
    body.put("lastFoundAt", i.lastFoundAt());
    body.put("timesFound", i.timesFound());
    body.put("statusChangedAt", i.statusChangedAt());
    return body;
  }

  private static long id(String text) {
    return number("id", text, 1, Long.MAX_VALUE);
  }

  private static long number(String field, String text, long min, long max) {
    try {
      long value = Long.parseLong(text);
      if (value >= min && value <= max) {
        return value;
      }
    } catch (NumberFormatException e) {
      // refused below, as an out-of-range value is
    }
    throw invalid(field + " must be an integer in " + min + ".." + max);
  }

  private static FindingActionRefusedException invalid(String message) {
    return new FindingActionRefusedException("INVALID_REQUEST", message);
  }

  private static WebEndpointResponse<Object> problem(FindingActionRefusedException e) {
    HttpStatus status =
        switch (e.code()) {
          case "FINDING_NOT_FOUND" -> HttpStatus.NOT_FOUND;
          case "ILLEGAL_TRANSITION" -> HttpStatus.CONFLICT;
          default -> HttpStatus.BAD_REQUEST;
        };
    return EndpointProblems.of(status, e.code(), e.getMessage());
  }
}
