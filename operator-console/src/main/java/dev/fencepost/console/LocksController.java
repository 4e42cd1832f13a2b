package dev.fencepost.console;

import jakarta.servlet.http.HttpServletResponse;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import tools.jackson.databind.JsonNode;

/**
 * Locks: inspect a key at the lock server ({@code GET /v1/locks/{key}}, with the operator's token,
 * which shows the holder's session too), the locks held now and the key's revokes (lockdb, when
 * read), and the break-glass revoke ({@code POST /v1/admin/locks/{key}/revoke}) after a
 * confirmation that shows exactly what will happen. The audit's operator is the token's subject.
 */
@Controller
class LocksController {

  private static final Logger log = LoggerFactory.getLogger(LocksController.class);

  private final ServiceClient services;
  private final ConsoleReads reads;
  private final ConsoleProperties properties;

  LocksController(ServiceClient services, ConsoleReads reads, ConsoleProperties properties) {
    this.services = services;
    this.reads = reads;
    this.properties = properties;
  }

  @GetMapping("/locks")
  String locks(
      @RequestParam(required = false) String key, Model model, HttpServletResponse response) {
    model.addAttribute("readsLockdb", reads.readsLockdb());
    model.addAttribute("held", reads.heldLocks());
    if (key != null && !key.isBlank()) {
      String k = Inputs.lockKey(key);
      model.addAttribute("key", k);
      inspect(k, model, response);
      model.addAttribute("audit", reads.lockAudit(k));
    }
    return "locks";
  }

  @PostMapping("/locks/revoke/confirm")
  String confirm(
      @RequestParam String key,
      @RequestParam(required = false) String reason,
      Model model,
      HttpServletResponse response) {
    String k = Inputs.lockKey(key);
    model.addAttribute("key", k);
    String r;
    try {
      r = Inputs.reason(reason);
    } catch (BadInputException e) {
      // Back to the lock with the message, nothing sent.
      response.setStatus(400);
      model.addAttribute("error", e.getMessage());
      model.addAttribute("readsLockdb", reads.readsLockdb());
      model.addAttribute("held", reads.heldLocks());
      inspect(k, model);
      model.addAttribute("audit", reads.lockAudit(k));
      return "locks";
    }
    model.addAttribute("reason", r);
    if (!inspect(k, model, response)) {
      return "locks";
    }
    return "lock-confirm";
  }

  @PostMapping("/locks/revoke")
  String revoke(
      @RequestParam String key,
      @RequestParam(required = false) String reason,
      @RequestParam(required = false) Long token,
      Model model,
      HttpServletResponse response) {
    String k = Inputs.lockKey(key);
    String r = Inputs.reason(reason);
    model.addAttribute("key", k);
    model.addAttribute("reason", r);
    if (!inspect(k, model, response)) {
      return "locks";
    }
    JsonNode now = (JsonNode) model.getAttribute("lock");
    Long current = now.hasNonNull("token") ? now.get("token").asLong() : null;
    if (!Objects.equals(current, token)) {
      // What was confirmed is not what would be revoked: confirm again.
      response.setStatus(409);
      model.addAttribute(
          "error",
          "the holder changed since you confirmed (token "
              + token
              + " then, "
              + current
              + " now): check again before revoking");
      return "lock-confirm";
    }
    ServiceClient.Answer answer =
        services.post(
            OverviewController.trim(properties.getLockServerUrl())
                + "/v1/admin/locks/"
                + k
                + "/revoke",
            Map.of("reason", r));
    log.atInfo()
        .addKeyValue("event", "console.lock.revoke")
        .addKeyValue("person", OperatorToken.person())
        .addKeyValue("key", k)
        .addKeyValue("status", answer.status())
        .addKeyValue("code", answer.code())
        .log("revoke sent");
    if (!answer.ok()) {
      response.setStatus(answer.reachable() && answer.status() < 500 ? answer.status() : 502);
      model.addAttribute("error", "The lock server refused the revoke: " + answer.message());
      return "lock-confirm";
    }
    model.addAttribute("revoked", answer.body());
    model.addAttribute("readsLockdb", reads.readsLockdb());
    model.addAttribute("audit", reads.lockAudit(k));
    inspect(k, model);
    return "lock-revoked";
  }

  /**
   * Inspects {@code key} into the model; false (with the service's message in the model) when the
   * lock server refused or did not answer.
   */
  private boolean inspect(String key, Model model) {
    ServiceClient.Answer answer =
        services.get(OverviewController.trim(properties.getLockServerUrl()) + "/v1/locks/" + key);
    if (!answer.ok() || answer.body() == null) {
      model.addAttribute("error", "The lock server did not show the lock: " + answer.message());
      model.addAttribute(
          "inspectStatus", answer.reachable() && answer.status() < 500 ? answer.status() : 502);
      return false;
    }
    model.addAttribute("lock", answer.body());
    return true;
  }

  private boolean inspect(String key, Model model, HttpServletResponse response) {
    boolean shown = inspect(key, model);
    if (!shown) {
      response.setStatus((Integer) model.getAttribute("inspectStatus"));
    }
    return shown;
  }
}
