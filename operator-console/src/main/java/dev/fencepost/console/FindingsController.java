package dev.fencepost.console;

import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;

/**
 * Findings of the last reconciliation run by severity, through {@link FindingsSource}. Read-only
 * until reconciliation-job's findings lifecycle (acknowledge, resolve) is merged.
 */
@Controller
class FindingsController {

  private final FindingsSource findings;

  FindingsController(FindingsSource findings) {
    this.findings = findings;
  }

  @GetMapping("/findings")
  String findings(@RequestParam(required = false) String severity, Model model) {
    String s = Inputs.severity(severity);
    model.addAttribute("severity", s);
    var run = findings.lastRun();
    model.addAttribute("run", run.orElse(null));
    run.ifPresent(
        r -> {
          model.addAttribute("findings", findings.findings(r.id(), s));
          model.addAttribute("counts", findings.classCounts(r.id()));
        });
    return "findings";
  }
}
