package dev.fencepost.console;

import jakarta.servlet.http.HttpServletResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;

/**
 * Payouts: a filtered list and one payout's whole history (paydb's audit trail with each actor and
 * token, the proxy's submission record from proxydb, the rail's movement from the rail's statement
 * with the operator's token), and cancel or abandon through reconciliation's {@code payoutops}
 * endpoint after a confirmation. The service applies the transition table; a refusal is shown with
 * its own message and code.
 */
@Controller
class PayoutsController {

  private static final Logger log = LoggerFactory.getLogger(PayoutsController.class);

  private final ConsoleReads reads;
  private final ServiceClient services;
  private final ConsoleProperties properties;

  PayoutsController(ConsoleReads reads, ServiceClient services, ConsoleProperties properties) {
    this.reads = reads;
    this.services = services;
    this.properties = properties;
  }

  @GetMapping("/payouts")
  String payouts(
      @RequestParam(required = false) String state,
      @RequestParam(required = false) String account,
      @RequestParam(required = false) String olderThan,
      Model model) {
    String s = Inputs.state(state);
    String a = Inputs.account(account);
    var age = Inputs.age(olderThan);
    model.addAttribute("states", ConsoleReads.STATES);
    model.addAttribute("state", s);
    model.addAttribute("account", a);
    model.addAttribute("olderThan", olderThan == null ? null : olderThan.trim());
    model.addAttribute("payouts", reads.payouts(s, a, age));
    model.addAttribute("pageSize", properties.getPageSize());
    return "payouts";
  }

  @GetMapping("/payouts/{id}")
  String payout(@PathVariable String id, Model model, HttpServletResponse response) {
    return detail(Inputs.payoutId(id), model, response);
  }

  @PostMapping("/payouts/{id}/confirm")
  String confirm(
      @PathVariable String id,
      @RequestParam(required = false) String action,
      @RequestParam(required = false) String reason,
      Model model,
      HttpServletResponse response) {
    UUID payoutId = Inputs.payoutId(id);
    String a = Inputs.payoutAction(action);
    String r;
    try {
      r = Inputs.reason(reason);
    } catch (BadInputException e) {
      response.setStatus(400);
      model.addAttribute("error", e.getMessage());
      return detail(payoutId, model, response);
    }
    var payout = reads.payout(payoutId);
    if (payout.isEmpty()) {
      response.setStatus(404);
      model.addAttribute("title", "No such payout");
      model.addAttribute("message", "paydb has no payout " + payoutId);
      return "problem";
    }
    model.addAttribute("payout", payout.get());
    model.addAttribute("action", a);
    model.addAttribute("reason", r);
    return "payout-confirm";
  }

  @PostMapping("/payouts/{id}/act")
  String act(
      @PathVariable String id,
      @RequestParam(required = false) String action,
      @RequestParam(required = false) String reason,
      Model model,
      HttpServletResponse response) {
    UUID payoutId = Inputs.payoutId(id);
    String a = Inputs.payoutAction(action);
    String r = Inputs.reason(reason);
    ServiceClient.Answer answer =
        services.post(
            OverviewController.trim(properties.getReconciliationManagementUrl())
                + "/actuator/payoutops/"
                + payoutId
                + "/"
                + a,
            Map.of("reason", r));
    log.atInfo()
        .addKeyValue("event", "console.payout.action")
        .addKeyValue("person", OperatorToken.person())
        .addKeyValue("action", a)
        .addKeyValue("payoutId", payoutId.toString())
        .addKeyValue("status", answer.status())
        .addKeyValue("code", answer.code())
        .log("payout action sent");
    if (answer.ok()) {
      model.addAttribute(
          "done",
          a
              + " done: the payout is now "
              + answer.body().path("state").asString("?")
              + " (recorded as "
              + OperatorToken.person()
              + ")");
    } else {
      response.setStatus(answer.reachable() && answer.status() < 500 ? answer.status() : 502);
      model.addAttribute("error", "Refused by the reconciliation service: " + answer.message());
    }
    return detail(payoutId, model, response);
  }

  private String detail(UUID id, Model model, HttpServletResponse response) {
    var payout = reads.payout(id);
    if (payout.isEmpty()) {
      response.setStatus(404);
      model.addAttribute("title", "No such payout");
      model.addAttribute("message", "paydb has no payout " + id);
      return "problem";
    }
    model.addAttribute("payout", payout.get());
    model.addAttribute("history", reads.history(id));
    model.addAttribute("readsProxydb", reads.readsProxydb());
    model.addAttribute("submission", reads.submission(id).orElse(null));
    ServiceClient.Answer rail =
        services.get(
            OverviewController.trim(properties.getRailStubUrl())
                + "/rail/admin/movements?clientReference="
                + URLEncoder.encode(payout.get().clientReference(), StandardCharsets.UTF_8));
    if (rail.ok() && rail.body() != null) {
      model.addAttribute("railMovements", rail.body().path("movements"));
    } else {
      model.addAttribute("railError", rail.message());
    }
    return "payout";
  }
}
