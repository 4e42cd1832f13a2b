package dev.fencepost.railstub;

import dev.fencepost.web.FreeText;
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

  private final FaultDecider decider;
  private final MovementBook book;

  RailAdminController(FaultDecider decider, MovementBook book) {
    this.decider = decider;
    this.book = book;
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

  @PutMapping("/faults")
  Map<String, Object> replaceFaults(@RequestBody FaultPlanRequest request) {
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
      @RequestParam(required = false) List<String> clientReference,
      @RequestParam(required = false) Instant receivedFrom,
      @RequestParam(required = false) Instant receivedTo,
      @RequestParam(required = false) String after,
      @RequestParam(required = false) Integer limit) {
    Map<String, Object> body = new LinkedHashMap<>();
    if (limit == null) {
      List<Movement> all =
          book.all(
              clientReference == null || clientReference.isEmpty() ? null : clientReference.get(0));
      body.put("count", all.size());
      body.put("movements", all);
      return body;
    }
    if (limit < 1 || limit > MAX_PAGE) {
      throw new InvalidPaymentException("limit", "must be 1.." + MAX_PAGE);
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

  private static Map<String, Object> describe(FaultPlan plan) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("rates", plan.rates());
    body.put("overrides", plan.overrides());
    body.put("lookupLagMillis", plan.lookupLag().toMillis());
    return body;
  }
}
