package dev.fencepost.railproxy;

import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The rail's read-only lookup, passed through for ambiguity resolution (UC-05, A-08). Read-only by
 * construction: it can only issue a GET, so the reconciler can never move money through it.
 */
@RestController
class RailLookupController {

  private static final Logger log = LoggerFactory.getLogger(RailLookupController.class);

  private final RailClient rail;
  private final MeterRegistry meters;

  RailLookupController(RailClient rail, MeterRegistry meters) {
    this.rail = rail;
    this.meters = meters;
    // Both results at zero from the start, for the rules' rate() and the dashboards.
    meters.counter("fencepost.rail.lookups", "result", "ok");
    meters.counter("fencepost.rail.lookups", "result", "unavailable");
  }

  @GetMapping("/v1/rail/payments")
  ResponseEntity<String> lookup(@RequestParam(required = false) String clientReference) {
    SubmissionController.requireIdentifier("clientReference", clientReference);
    try {
      String body = rail.lookup(clientReference);
      meters.counter("fencepost.rail.lookups", "result", "ok").increment();
      return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(body);
    } catch (RailLookupUnavailableException e) {
      meters.counter("fencepost.rail.lookups", "result", "unavailable").increment();
      log.atWarn()
          .addKeyValue("event", "rail.lookup.unavailable")
          .addKeyValue("clientReference", clientReference)
          .addKeyValue("reason", e.getMessage())
          .log("rail lookup failed");
      throw e;
    }
  }
}
