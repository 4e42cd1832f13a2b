package dev.fencepost.railproxy;

import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;

/** The proxy's v1 API for the payout worker and the reconciler (docs/rail.md). */
@RestController
@RequestMapping("/v1/submissions")
class SubmissionController {

  private static final int DEFAULT_PAGE_SIZE = 100;

  private final SubmissionService service;
  private final SubmissionStore store;
  private final ProxyProperties properties;

  SubmissionController(
      SubmissionService service, SubmissionStore store, ProxyProperties properties) {
    this.service = service;
    this.store = store;
    this.properties = properties;
  }

  /**
   * The answer to an accepted submission: 200 whatever the rail did, because the proxy did its job;
   * {@code outcome} says what happened at the rail.
   */
  record SubmissionResponse(
      String payoutId,
      long submissionId,
      Outcome outcome,
      String railReference,
      String declineCode,
      String clientReference,
      long fencingToken) {}

  @PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
  SubmissionResponse submit(@RequestBody JsonNode body) {
    SubmissionRequest request = SubmissionRequest.from(body, properties.currency());
    SubmissionService.Result result = service.submit(request);
    return new SubmissionResponse(
        request.payoutId(),
        result.submissionId(),
        result.outcome().outcome(),
        result.outcome().railReference(),
        result.outcome().declineCode(),
        request.clientReference(),
        request.fencingToken());
  }

  @GetMapping("/{payoutId}")
  SubmissionRecord get(@PathVariable String payoutId) {
    requireIdentifier("payoutId", payoutId);
    return store
        .findByPayoutId(payoutId)
        .orElseThrow(() -> new SubmissionNotFoundException(payoutId));
  }

  /**
   * A keyset page for reconciliation: ordered by submission id, continue with {@code
   * afterId=nextAfterId} until it is null.
   */
  @GetMapping
  Map<String, Object> list(
      @RequestParam(required = false) String createdFrom,
      @RequestParam(required = false) String createdTo,
      @RequestParam(required = false) String afterId,
      @RequestParam(required = false) String limit) {
    OffsetDateTime from = instant("createdFrom", createdFrom);
    OffsetDateTime to = instant("createdTo", createdTo);
    if (from != null && to != null && !from.isBefore(to)) {
      throw new InvalidSubmissionException("createdTo", "must be after createdFrom");
    }
    long after = number("afterId", afterId, 0, Long.MAX_VALUE, 0);
    int size = (int) number("limit", limit, 1, properties.maxPageSize(), DEFAULT_PAGE_SIZE);
    List<SubmissionRecord> items = store.page(from, to, after, size);
    Map<String, Object> page = new LinkedHashMap<>();
    page.put("items", items);
    page.put("limit", size);
    page.put("nextAfterId", items.size() == size ? items.get(items.size() - 1).id() : null);
    return page;
  }

  static void requireIdentifier(String field, String value) {
    if (value == null || !SubmissionRequest.IDENTIFIER.matcher(value).matches()) {
      throw new InvalidSubmissionException(
          field, "must be 1 to 128 characters from [A-Za-z0-9:._-]");
    }
  }

  private static OffsetDateTime instant(String field, String value) {
    if (value == null || value.isEmpty()) {
      return null;
    }
    try {
      return OffsetDateTime.parse(value);
    } catch (DateTimeParseException e) {
      throw new InvalidSubmissionException(
          field, "must be an ISO-8601 timestamp with offset, e.g. 2026-01-31T00:00:00Z");
    }
  }

  private static long number(String field, String value, long min, long max, long fallback) {
    if (value == null || value.isEmpty()) {
      return fallback;
    }
    try {
      long parsed = Long.parseLong(value);
      if (parsed < min || parsed > max) {
        throw new InvalidSubmissionException(field, "must be between " + min + " and " + max);
      }
      return parsed;
    } catch (NumberFormatException e) {
      throw new InvalidSubmissionException(field, "must be an integer");
    }
  }
}
