package dev.fencepost.railstub;

import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The rail's public API (docs/rail.md). The submit handler writes its own response because some
 * fault modes must answer nothing at all (see {@link AbortConnectionValve}).
 */
@RestController
class RailPaymentsController {

  private static final Logger log = LoggerFactory.getLogger(RailPaymentsController.class);

  private final MovementBook book;
  private final FaultDecider decider;
  private final StubProperties properties;
  private final JsonMapper json;
  private final Clock clock;
  private final MeterRegistry meters;

  RailPaymentsController(
      MovementBook book,
      FaultDecider decider,
      StubProperties properties,
      JsonMapper json,
      Clock clock,
      MeterRegistry meters) {
    this.book = book;
    this.decider = decider;
    this.properties = properties;
    this.json = json;
    this.clock = clock;
    this.meters = meters;
  }

  @PostMapping(path = "/rail/payments", consumes = MediaType.APPLICATION_JSON_VALUE)
  void submit(@RequestBody JsonNode body, HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    PaymentRequest payment = PaymentRequest.from(body);
    book.requireRoom();
    FaultDecider.Decision decision = decider.decide(payment.clientReference());
    pause(decision.nominalLatency());
    FaultMode mode = decision.mode();
    Movement movement = null;
    switch (mode) {
      case NONE -> {
        movement = settle(payment);
        write(
            response, 201, Map.of("railReference", movement.railReference(), "status", "SETTLED"));
      }
      case DELAY -> {
        pause(properties.delay());
        movement = settle(payment);
        write(
            response, 201, Map.of("railReference", movement.railReference(), "status", "SETTLED"));
      }
      case DECLINE ->
          write(response, 422, Map.of("status", "DECLINED", "code", properties.declineCode()));
      case TIMEOUT_BEFORE_SETTLE -> {
        pause(properties.hang());
        AbortConnectionValve.abort(request);
      }
      case TIMEOUT_AFTER_SETTLE -> {
        movement = settle(payment);
        pause(properties.hang());
        AbortConnectionValve.abort(request);
      }
      case ERROR_AFTER_SETTLE -> {
        movement = settle(payment);
        write(response, 500, Map.of("status", "ERROR"));
      }
      case RESET -> AbortConnectionValve.abort(request);
    }
    meters.counter("fencepost.stub.payments", "mode", mode.name()).increment();
    log.atInfo()
        .addKeyValue("event", "rail.stub.payment")
        .addKeyValue("mode", mode.name())
        .addKeyValue("clientReference", payment.clientReference())
        .addKeyValue("attempt", decision.attempt())
        .addKeyValue("moneyMoved", movement != null)
        .addKeyValue("railReference", movement == null ? null : movement.railReference())
        .log("rail stub handled a payment");
  }

  @GetMapping("/rail/payments")
  Map<String, Object> lookup(@RequestParam String clientReference) {
    if (!clientReference.matches("[A-Za-z0-9:._-]{1,128}")) {
      throw new InvalidPaymentException("clientReference", "must match [A-Za-z0-9:._-]{1,128}");
    }
    List<Movement> visible = book.visible(clientReference, clock.instant());
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("clientReference", clientReference);
    body.put("movements", visible);
    return body;
  }

  private Movement settle(PaymentRequest payment) {
    return book.settle(payment, clock.instant(), decider.plan().lookupLag());
  }

  private void write(HttpServletResponse response, int status, Map<String, Object> body)
      throws IOException {
    response.setStatus(status);
    response.setContentType(MediaType.APPLICATION_JSON_VALUE);
    json.writeValue(response.getOutputStream(), body);
  }

  /** Simulated rail time. A real rail is slow; this is the stub standing in for it. */
  private static void pause(Duration duration) {
    if (duration.isZero() || duration.isNegative()) {
      return;
    }
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
