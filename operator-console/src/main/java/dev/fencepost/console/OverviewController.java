package dev.fencepost.console;

import java.util.ArrayList;
import java.util.List;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import tools.jackson.databind.JsonNode;

/**
 * The overview: payouts per state, the oldest PENDING payout's age, ambiguous payouts past their
 * SLA, the last reconciliation run and its verdict (paydb); the lock service's and the guards'
 * health (their health endpoints, paydb answering); the alerts firing (Prometheus, when
 * configured).
 */
@Controller
class OverviewController {

  private final ConsoleReads reads;
  private final ServiceClient services;
  private final ConsoleProperties properties;

  OverviewController(ConsoleReads reads, ServiceClient services, ConsoleProperties properties) {
    this.reads = reads;
    this.services = services;
    this.properties = properties;
  }

  /** A part of the platform and whether it is healthy. */
  record Health(String part, String status, boolean up) {}

  /** One alert firing or pending. */
  record Alert(String name, String severity, String state, String activeAt, String summary) {}

  @GetMapping("/")
  String overview(Model model) {
    model.addAttribute("overview", reads.overview());
    model.addAttribute("sla", properties.getResolutionSla());
    List<Health> health = new ArrayList<>();
    health.add(health("Lock server", properties.getLockServerManagementUrl()));
    health.add(health("Rail proxy (second guard)", properties.getRailProxyManagementUrl()));
    boolean paydb = reads.paydbAnswers();
    health.add(new Health("paydb (first guard)", paydb ? "UP" : "DOWN", paydb));
    health.add(health("Reconciliation job", properties.getReconciliationManagementUrl()));
    health.add(health("Payout job", properties.getPayoutJobManagementUrl()));
    model.addAttribute("health", health);
    String prometheus = properties.getPrometheusUrl();
    model.addAttribute("prometheusConfigured", prometheus != null && !prometheus.isBlank());
    if (prometheus != null && !prometheus.isBlank()) {
      ServiceClient.Answer answer = services.getAnonymous(trim(prometheus) + "/api/v1/alerts");
      if (answer.ok() && answer.body() != null) {
        List<Alert> alerts = new ArrayList<>();
        for (JsonNode alert : answer.body().path("data").path("alerts")) {
          alerts.add(
              new Alert(
                  alert.path("labels").path("alertname").asString(""),
                  alert.path("labels").path("severity").asString(""),
                  alert.path("state").asString(""),
                  alert.path("activeAt").asString(""),
                  alert.path("annotations").path("summary").asString("")));
        }
        model.addAttribute("alerts", alerts);
      } else {
        model.addAttribute("alertsError", "Prometheus: " + answer.message());
      }
    }
    return "overview";
  }

  private Health health(String part, String managementUrl) {
    ServiceClient.Answer answer = services.getAnonymous(trim(managementUrl) + "/actuator/health");
    String status =
        answer.body() != null && answer.body().hasNonNull("status")
            ? answer.body().get("status").asString()
            : answer.reachable() ? "HTTP " + answer.status() : "UNREACHABLE";
    return new Health(part, status, "UP".equals(status));
  }

  static String trim(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }
}
