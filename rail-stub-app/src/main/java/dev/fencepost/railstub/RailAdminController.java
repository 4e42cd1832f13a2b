package dev.fencepost.railstub;

import dev.fencepost.web.FreeText;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Test and experiment controls: the fault plan, and the ground truth of every movement. Not part of
 * what a real rail offers; the proxy never calls these.
 */
@RestController
@RequestMapping("/rail/admin")
class RailAdminController {

  /** The largest page of the statement one request may ask for. */
  static final int MAX_PAGE = 1000;

  private static final Logger log = LoggerFactory.getLogger(RailAdminController.class);

  private static final Set<String> PLAN_PROPERTIES =
      Set.of("rates", "overrides", "lookupLagMillis");

  private final FaultDecider decider;
  private final MovementBook book;
  private final JsonMapper json;

  RailAdminController(FaultDecider decider, MovementBook book, JsonMapper json) {
    this.decider = decider;
    this.book = book;
    this.json = json;
  }

  /**
   * A new fault plan.
   *
   * @param rates probability per mode
   * @param overrides mode forced per client reference
   * @param lookupLagMillis lookup visibility lag; absent keeps the current lag
   */
  record FaultPlanRequest(
      Map<FaultMode, Double> rates, Map<String, FaultMode> overrides, Long lookupLagMillis) {}

  /**
   * The body is checked for its shape before it is bound: Jackson would ignore an unknown property
   * (a typo such as {@code "rate"} would silently replace the plan with an empty one) and coerce a
   * quoted number or a fraction where an integer belongs.
   */
  @PutMapping("/faults")
  Map<String, Object> replaceFaults(@RequestBody JsonNode body) {
    FaultPlanRequest request = faultPlanRequest(body);
    if (request.overrides() != null) {
      request
          .overrides()
          .keySet()
          .forEach(k -> FreeText.requireNoControlCharacters("overrides", k));
    }
    Duration lag =
        request.lookupLagMillis() == null
            ? decider.plan().lookupLag()
            : Duration.ofMillis(request.lookupLagMillis());
    FaultPlan plan = new FaultPlan(request.rates(), request.overrides(), lag);
    decider.replace(plan);
    log.atInfo()
        .addKeyValue("event", "rail.stub.faults_replaced")
        .addKeyValue("rates", plan.rates())
        .addKeyValue("overrides", plan.overrides().size())
        .addKeyValue("lookupLagMillis", plan.lookupLag().toMillis())
        .log("rail stub fault plan replaced");
    return describe(plan);
  }

  @GetMapping("/faults")
  Map<String, Object> faults() {
    return describe(decider.plan());
  }

  @DeleteMapping("/faults")
  ResponseEntity<Void> restoreFaults() {
    decider.restoreStartupPlan();
    return ResponseEntity.noContent().build();
  }

  /**
   * The statement. Without paging parameters every movement (optionally of one client reference),
   * as before. With {@code limit} (1..1000) a page in rail-reference order after {@code after},
   * optionally of several {@code clientReference}s and received in {@code [receivedFrom,
   * receivedTo)}; {@code next} is the cursor of the following page, null on the last.
   */
  @GetMapping("/movements")
  Map<String, Object> movements(
      HttpServletRequest request,
      @RequestParam(required = false) Instant receivedFrom,
      @RequestParam(required = false) Instant receivedTo,
      @RequestParam(required = false) String after,
      @RequestParam(name = "limit", required = false) String limitText) {
    // Parsed here: Spring's conversion strips all whitespace, so "1 2" would be a limit of 12.
    Integer limit = limit(limitText);
    // As sent: Spring's conversion to a list splits one value at commas and trims each part.
    String[] references = request.getParameterValues("clientReference");
    List<String> clientReference = references == null ? null : List.of(references);
    // A filter no movement can match is a caller's mistake, answered as one rather than as an
    // empty statement the reconciler would take for "the rail moved nothing".
    if (clientReference != null) {
      clientReference.forEach(reference -> requireReference("clientReference", reference));
    }
    if (after != null) {
      requireReference("after", after);
    }
    if (receivedFrom != null && receivedTo != null && !receivedFrom.isBefore(receivedTo)) {
      throw new InvalidPaymentException("receivedTo", "must be after receivedFrom");
    }
    Map<String, Object> body = new LinkedHashMap<>();
    if (limit == null) {
      List<Movement> all =
          book.all(
              clientReference == null || clientReference.isEmpty() ? null : clientReference.get(0));
      body.put("count", all.size());
      body.put("movements", all);
      return body;
    }
    List<Movement> page =
        book.page(
            clientReference == null ? null : Set.copyOf(clientReference),
            receivedFrom,
            receivedTo,
            after,
            limit);
    body.put("count", page.size());
    body.put("movements", page);
    body.put("next", page.size() < limit ? null : page.get(page.size() - 1).railReference());
    return body;
  }

  /** Forgets every movement and attempt count: a fresh rail for the next test. */
  @DeleteMapping("/movements")
  ResponseEntity<Void> clearMovements() {
    book.clear();
    decider.forgetAttempts();
    log.atInfo().addKeyValue("event", "rail.stub.movements_cleared").log("rail stub cleared");
    return ResponseEntity.noContent().build();
  }

  private FaultPlanRequest faultPlanRequest(JsonNode body) {
    if (body == null || !body.isObject()) {
      throw new InvalidFaultPlanException("the fault plan must be a JSON object");
    }
    for (String name : body.propertyNames()) {
      if (!PLAN_PROPERTIES.contains(name)) {
        throw new InvalidFaultPlanException(
            "unknown property " + FreeText.printable(name) + "; a plan has " + PLAN_PROPERTIES);
      }
    }
    requireObjectOf(body.get("rates"), "rates", JsonNode::isNumber, "a number");
    requireObjectOf(body.get("overrides"), "overrides", JsonNode::isString, "a mode's name");
    JsonNode lag = body.get("lookupLagMillis");
    if (lag != null && !lag.isNull() && !(lag.isIntegralNumber() && lag.canConvertToLong())) {
      throw new InvalidFaultPlanException("lookupLagMillis must be an integer number of ms");
    }
    try {
      return json.treeToValue(body, FaultPlanRequest.class);
    } catch (JacksonException e) {
      // An unknown mode's name: Jackson's message names it, not the request's internals.
      throw new InvalidFaultPlanException(
          "rates and overrides take the modes " + java.util.Arrays.toString(FaultMode.values()));
    }
  }

  private static void requireObjectOf(
      JsonNode node, String field, java.util.function.Predicate<JsonNode> value, String what) {
    if (node == null || node.isNull()) {
      return;
    }
    if (!node.isObject()) {
      throw new InvalidFaultPlanException(field + " must be a JSON object");
    }
    for (JsonNode entry : node.values()) {
      if (!value.test(entry)) {
        throw new InvalidFaultPlanException("every value of " + field + " must be " + what);
      }
    }
  }

  private static Integer limit(String text) {
    if (text == null) {
      return null;
    }
    try {
      int limit = Integer.parseInt(text);
      if (limit >= 1 && limit <= MAX_PAGE) {
        return limit;
      }
    } catch (NumberFormatException e) {
      // refused below, as an out-of-range limit is
    }
    throw new InvalidPaymentException("limit", "must be an integer in 1.." + MAX_PAGE);
  }

  private static void requireReference(String field, String value) {
    if (!PaymentRequest.REFERENCE.matcher(value).matches()) {
      throw new InvalidPaymentException(field, "must match " + PaymentRequest.REFERENCE.pattern());
    }
  }

  private static Map<String, Object> describe(FaultPlan plan) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("rates", plan.rates());
    body.put("overrides", plan.overrides());
    body.put("lookupLagMillis", plan.lookupLag().toMillis());
    return body;
  }
}
