package dev.fencepost.console;

import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.servlet.mvc.support.RedirectAttributes;

/**
 * Findings with owners (ADR 0179) through {@link FindingsSource}: the list by status (OPEN unless
 * asked otherwise) and severity, one finding with its audit trail, and acknowledge or resolve after
 * a confirmation. The reconciliation service applies the transition table and records the person; a
 * refusal is shown with its own message and code. The last run's verdict (paydb) heads the list.
 */
@Controller
class FindingsController {

  private static final Logger log = LoggerFactory.getLogger(FindingsController.class);

  private final FindingsSource findings;
  private final ConsoleReads reads;

  FindingsController(FindingsSource findings, ConsoleReads reads) {
    this.findings = findings;
    this.reads = reads;
  }

  @GetMapping("/findings")
  String findings(
      @RequestParam(required = false) String status,
      @RequestParam(required = false) String severity,
      @RequestParam(required = false) String afterId,
      Model model) {
    // No status asked for: the ones nobody has taken yet.
    String st = status == null ? "OPEN" : Inputs.findingStatus(status);
    String sv = Inputs.severity(severity);
    long after = Inputs.afterId(afterId);
    model.addAttribute("status", st);
    model.addAttribute("severity", sv);
    model.addAttribute("afterId", after);
    model.addAttribute("run", reads.lastRun().orElse(null));
    FindingsSource.Reply<FindingsSource.Page> page = findings.list(st, sv, after);
    if (page.ok()) {
      model.addAttribute("page", page.value());
    } else {
      model.addAttribute("error", "The reconciliation service did not list: " + page.refusal());
    }
    return "findings";
  }

  @GetMapping("/findings/{id}")
  String finding(@PathVariable String id, Model model, HttpServletResponse response) {
    return detail(Inputs.findingId(id), model, response);
  }

  @PostMapping("/findings/{id}/confirm")
  String confirm(
      @PathVariable String id,
      @RequestParam(required = false) String action,
      @RequestParam(required = false) String reason,
      Model model,
      HttpServletResponse response) {
    long findingId = Inputs.findingId(id);
    String a = Inputs.findingAction(action);
    String r = Inputs.findingReason(a, reason);
    FindingsSource.Reply<FindingsSource.Detail> one = findings.one(findingId);
    if (!one.ok()) {
      return refused(one, model, response);
    }
    model.addAttribute("finding", one.value().finding());
    model.addAttribute("action", a);
    model.addAttribute("reason", r);
    return "finding-confirm";
  }

  @PostMapping("/findings/{id}/act")
  String act(
      @PathVariable String id,
      @RequestParam(required = false) String action,
      @RequestParam(required = false) String reason,
      Model model,
      HttpServletResponse response,
      RedirectAttributes redirect) {
    long findingId = Inputs.findingId(id);
    String a = Inputs.findingAction(action);
    String r = Inputs.findingReason(a, reason);
    FindingsSource.Reply<FindingsSource.Finding> done = findings.act(findingId, a, r);
    log.atInfo()
        .addKeyValue("event", "console.finding.action")
        .addKeyValue("person", OperatorToken.person())
        .addKeyValue("action", a)
        .addKeyValue("findingId", findingId)
        .addKeyValue("status", done.status())
        .addKeyValue("accepted", done.ok())
        .log("finding action sent");
    if (!done.ok()) {
      response.setStatus(status(done));
      model.addAttribute("error", "Refused by the reconciliation service: " + done.refusal());
      return detail(findingId, model, response);
    }
    redirect.addFlashAttribute(
        "done",
        a
            + " done: the finding is now "
            + done.value().status()
            + " (recorded as "
            + OperatorToken.person()
            + ")");
    return "redirect:/findings/" + findingId;
  }

  private String detail(long id, Model model, HttpServletResponse response) {
    FindingsSource.Reply<FindingsSource.Detail> one = findings.one(id);
    if (!one.ok()) {
      return refused(one, model, response);
    }
    model.addAttribute("finding", one.value().finding());
    model.addAttribute("trail", one.value().trail());
    model.addAttribute("maxReason", Inputs.MAX_FINDING_REASON);
    return "finding";
  }

  /** The finding could not be read: the service's words, under its status (502 when it is down). */
  private static String refused(
      FindingsSource.Reply<?> reply, Model model, HttpServletResponse response) {
    response.setStatus(status(reply));
    model.addAttribute(
        "title", reply.status() == 404 ? "No such finding" : "Could not read the finding");
    model.addAttribute("message", reply.refusal());
    return "problem";
  }

  private static int status(FindingsSource.Reply<?> reply) {
    return reply.status() >= 400 && reply.status() < 500 ? reply.status() : 502;
  }
}
